"""The messages of ``GET /v1/ws/{threadId}``: the commands a client sends, and the frames the
server sends back (docs/http.md, "WebSocket").

Server → client, one JSON text frame each:

- an event: ``{"id": <event id>, ...the JSON of the SSE frame's data line}``, ids as on SSE;
- ``{"type": "ack", "for": <command>, ...the body its HTTP route answers}``;
- ``{"type": "error", "for": <command or null>, "status": <the HTTP status>, "error": {...}}``,
  the body its HTTP route would answer (a field the client got wrong is named).

Client → server, one JSON text frame each: ``send`` (the body of ``POST /v1/chat/{threadId}``
beside ``"type"``), ``confirm`` (``requestId`` and ``answer``, the body of
``POST /v1/confirm/{requestId}``) and ``cancel``. They are validated by the very models of those
routes; this module only finds which one a frame is.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Annotated, Any, Final

from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from runyard.http.errors import (
    ApiError,
    api_error_body,
    error_body,
    invalid_request_body,
    service_error_body,
    status_for,
    storage_error_body,
)
from runyard.http.routes.schemas import ChatRequest, ConfirmRequest
from runyard.ids import REQUEST_ID_PATTERN
from runyard.service import LiveEvent, ServiceError
from runyard.storage import StorageError

__all__ = [
    "CLOSE_DATABASE_AWAY",
    "CLOSE_END_OF_LOG",
    "CLOSE_SERVER_GOING_AWAY",
    "Cancel",
    "Command",
    "Confirm",
    "FrameRefused",
    "Send",
    "event_message",
    "parse_command",
    "refusal",
    "refusal_close",
]

logger = logging.getLogger("runyard.http")

CLOSE_END_OF_LOG: Final = (1000, "end_of_log")
"""The server sent what the log holds and follows no further (``create_app(sse_follow=False)``)."""
CLOSE_SERVER_GOING_AWAY: Final = (1001, "server_shutdown")
"""The server is stopping; every stored event was sent first. Reconnect (to another replica)."""
CLOSE_DATABASE_AWAY: Final = (1013, "database_unavailable")
"""The database stayed away longer than the store waits; reconnect from the last id."""
_REFUSED_BASE = 4000
"""A socket refused when it opens closes with 4000 + the HTTP status its SSE request would get."""


def event_message(event: LiveEvent) -> str:
    """The event's frame: its stored JSON object with ``id`` first (every event is a non-empty
    object, ``{"type", ...}``, so the splice is the object, and no event has an ``id`` of its own)."""
    return f'{{"id":{event.id},{event.json[1:]}'


class FrameRefused(Exception):
    """A client frame refused before any route saw it: its HTTP status and error body."""

    def __init__(self, status: int, body: dict[str, Any], kind: str | None = None) -> None:
        super().__init__(body["error"]["message"])
        self.status = status
        self.body = body
        self.kind = kind


@dataclass(frozen=True, slots=True)
class Send:
    """``{"type": "send", ...}``: what ``POST /v1/chat/{threadId}`` does."""

    body: ChatRequest
    kind: str = "send"


@dataclass(frozen=True, slots=True)
class Confirm:
    """``{"type": "confirm", "requestId", "answer"}``: what ``POST /v1/confirm/{requestId}`` does."""

    request_id: str
    body: ConfirmRequest
    kind: str = "confirm"


@dataclass(frozen=True, slots=True)
class Cancel:
    """``{"type": "cancel"}``: what ``POST /v1/chat/{threadId}/cancel`` does."""

    kind: str = "cancel"


Command = Send | Confirm | Cancel


class _ConfirmFrame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    requestId: Annotated[str, StringConstraints(pattern=REQUEST_ID_PATTERN)]
    answer: ConfirmRequest


class _CancelFrame(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _send(fields: dict[str, Any]) -> Command:
    return Send(ChatRequest.model_validate(fields))


def _confirm(fields: dict[str, Any]) -> Command:
    frame = _ConfirmFrame.model_validate(fields)
    return Confirm(frame.requestId, frame.answer)


def _cancel(fields: dict[str, Any]) -> Command:
    _CancelFrame.model_validate(fields)
    return Cancel()


_PARSERS = {"send": _send, "confirm": _confirm, "cancel": _cancel}


def parse_command(text: str | None, max_bytes: int) -> Command:
    """The command of a client frame (``None``: a binary one); ``FrameRefused`` naming the field
    it got wrong, as the HTTP route would (422 ``invalid_request``, 413 ``body_too_large``)."""
    fields = _json_object(text, max_bytes)
    kind = fields.pop("type", None)
    parse = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parse is None:
        raise _invalid("type", f"must be one of {', '.join(_PARSERS)}")
    try:
        return parse(fields)
    except ValidationError as exc:
        problems = [
            {
                "field": ".".join(str(part) for part in error["loc"]) or "frame",
                "message": error["msg"],
            }
            for error in exc.errors()
        ]
        raise FrameRefused(422, invalid_request_body(problems), kind) from exc


def _json_object(text: str | None, max_bytes: int) -> dict[str, Any]:
    if text is None:
        raise _invalid("frame", "must be a text frame holding a JSON object")
    if len(text.encode()) > max_bytes:
        message = f"the frame is larger than {max_bytes} bytes"
        raise FrameRefused(413, error_body("body_too_large", message))
    try:
        fields = json.loads(text)
    except ValueError as exc:
        raise _invalid("frame", f"is not valid JSON: {exc}") from exc
    if not isinstance(fields, dict):
        raise _invalid("frame", "must be a JSON object")
    return fields


def _invalid(field: str, message: str) -> FrameRefused:
    return FrameRefused(422, invalid_request_body([{"field": field, "message": message}]))


def refusal(exc: Exception) -> tuple[int, dict[str, Any]]:
    """The HTTP status and error body of ``exc``, as the HTTP routes' handlers answer it."""
    if isinstance(exc, FrameRefused):
        return exc.status, exc.body
    if isinstance(exc, ServiceError):
        return status_for(exc), service_error_body(exc)
    if isinstance(exc, ApiError):
        return exc.status, api_error_body(exc)
    if isinstance(exc, StorageError):
        logger.error("storage failed under a WebSocket command: %s", exc)
        return 503, storage_error_body(exc)
    # A bug, as a 500 is for HTTP: the traceback to the (redacted) log, never to the client.
    logger.error("a WebSocket command failed", exc_info=exc)
    return 500, error_body("internal_error", "internal server error")


def refusal_close(status: int, body: dict[str, Any]) -> tuple[int, str]:
    """The close code and reason of a socket refused as it opens: 4000 + the status, and the
    error's code (a close reason holds at most 123 bytes; the error frame before it says more)."""
    code: str = body["error"]["code"]
    return _REFUSED_BASE + status, code[:123]
