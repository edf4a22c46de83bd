"""The routers of the ``/v1`` API."""

from runyard.http.routes import admin, catalog, chat, events, meta, metrics, threads

ROUTERS = (
    chat.router,
    events.router,
    threads.router,
    catalog.router,
    admin.router,
    meta.router,
    metrics.router,
)

__all__ = ["ROUTERS"]
