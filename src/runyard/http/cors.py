"""CORS: which browser origins may call the API and open its event streams.

A WebSocket is outside CORS (a browser opens one to any site, with that site's cookies), so
``socket_origin_allowed`` applies the same list to the ``Origin`` a browser sends with it.

Off unless ``RUNYARD_CORS_ORIGINS`` lists origins: then Starlette's ``CORSMiddleware`` answers
preflight ``OPTIONS`` requests and adds the ``Access-Control-*`` headers to every response —
event streams and error bodies included — for those origins only.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

from runyard.http.cursor import LAST_EVENT_ID
from runyard.http.identity import TENANT_HEADER, USER_HEADER

__all__ = [
    "CORS_EXPOSED",
    "CORS_HEADERS",
    "CORS_METHODS",
    "add_cors",
    "parse_origins",
    "socket_origin_allowed",
]

CORS_METHODS = ("GET", "POST", "PATCH", "DELETE")
CORS_HEADERS = (
    "Content-Type",
    LAST_EVENT_ID,
    TENANT_HEADER,
    USER_HEADER,
    "Authorization",
    "X-Api-Key",
)
"""Request headers a page may send: JSON bodies, the SSE cursor, identity, and the credentials
an authenticating proxy in front of runyard reads (or an API key: ``X-Api-Key`` is the header
LangGraph's JavaScript SDK sends its ``apiKey`` in)."""
CORS_EXPOSED = ("Content-Location", "Location")
"""Response headers a page may read: where the LangGraph face's run and its stream are (the
SDK's ``onRunCreated``, and its rejoin of a broken stream)."""


def parse_origins(setting: str) -> list[str]:
    """``"https://a.example, https://b.example"`` → the origins; ``""`` → none."""
    return [origin.strip() for origin in setting.split(",") if origin.strip()]


def add_cors(app: FastAPI, origins: list[str]) -> None:
    """Allow ``origins`` (``*`` = any) to call ``app`` from a browser; nothing when empty.

    Credentials (cookies for a proxy's session) are allowed for listed origins only, never for
    ``*``: that would let every site on the web act as the signed-in user.
    """
    if not origins:
        return
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_methods=CORS_METHODS,
        allow_headers=CORS_HEADERS,
        expose_headers=CORS_EXPOSED,
        allow_credentials="*" not in origins,
        max_age=600,
    )


def socket_origin_allowed(
    origin: str | None, host: str | None, origins: list[str], auth: str
) -> bool:
    """Whether a WebSocket opened from the page ``origin`` may be served: no ``Origin`` (not a
    browser), the server's own ``host``, or a listed origin. ``*`` stands for any origin except
    with ``RUNYARD_AUTH=proxy``, whose proxy may authenticate by cookie: as CORS sends no
    credentials for ``*``, no other site's page may act as the signed-in user."""
    if origin is None or origin in origins:
        return True
    if host is not None and origin.partition("://")[2] == host:
        return True
    return "*" in origins and auth != "proxy"
