"""runyard over HTTP: the ``/v1`` API (runs, confirmations, SSE events, threads), health checks.

``create_app(settings, *, store=None, agents=None, bus=None)`` returns the FastAPI app that
``runyard serve`` runs under uvicorn; its API docs are at ``/docs`` and ``/redoc`` (offline).
"""

from runyard.http.app import AgentsOnStore, create_app
from runyard.http.body_limit import BodyLimit
from runyard.http.cursor import replay_cursor
from runyard.http.errors import STATUS_CODES, ApiError, status_for
from runyard.http.identity import TENANT_HEADER, USER_HEADER
from runyard.http.sse import SSE_HEADERS, EventStreamResponse

__all__ = [
    "SSE_HEADERS",
    "STATUS_CODES",
    "TENANT_HEADER",
    "USER_HEADER",
    "AgentsOnStore",
    "ApiError",
    "BodyLimit",
    "EventStreamResponse",
    "create_app",
    "replay_cursor",
    "status_for",
]
