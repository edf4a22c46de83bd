"""CORS: which browser origins may call the API and open its event streams.

Off unless ``RUNYARD_CORS_ORIGINS`` lists origins: then Starlette's ``CORSMiddleware`` answers
preflight ``OPTIONS`` requests and adds the ``Access-Control-*`` headers to every response —
event streams and error bodies included — for those origins only.
"""

from __future__ import annotations

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

from runyard.http.cursor import LAST_EVENT_ID
from runyard.http.identity import TENANT_HEADER, USER_HEADER

__all__ = ["CORS_HEADERS", "CORS_METHODS", "add_cors", "parse_origins"]

CORS_METHODS = ("GET", "POST", "DELETE")
CORS_HEADERS = ("Content-Type", LAST_EVENT_ID, TENANT_HEADER, USER_HEADER, "Authorization")
"""Request headers a page may send: JSON bodies, the SSE cursor, identity, and the credentials
an authenticating proxy in front of runyard reads."""


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
        allow_credentials="*" not in origins,
        max_age=600,
    )
