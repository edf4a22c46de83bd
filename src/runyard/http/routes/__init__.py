"""The routers of the ``/v1`` API."""

from runyard.http.routes import (
    admin,
    catalog,
    chat,
    events,
    file_tickets,
    files,
    meta,
    metrics,
    stream_tickets,
    threads,
    websocket,
)

ROUTERS = (
    chat.router,
    events.router,
    websocket.router,
    threads.router,
    files.router,
    catalog.router,
    admin.router,
    meta.router,
    metrics.router,
)

KEYS_ROUTERS = (stream_tickets.router, file_tickets.router)
"""Served only with ``RUNYARD_AUTH=keys``."""

__all__ = ["KEYS_ROUTERS", "ROUTERS"]
