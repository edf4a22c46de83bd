"""The routers of the ``/v1`` API."""

from runyard.http.routes import chat, events, meta, threads

ROUTERS = (chat.router, events.router, threads.router, meta.router)

__all__ = ["ROUTERS"]
