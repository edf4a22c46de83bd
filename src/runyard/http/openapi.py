"""The OpenAPI document: FastAPI's, made to say what the API really answers.

- Every error is the ``ErrorBody`` envelope; each route lists the statuses it can answer with
  ``error_responses``. FastAPI adds a 422 with its ``{"detail": …}`` body to every route with
  parameters, which runyard never sends: those are removed, with their schemas.
- An event stream is ``text/event-stream``, its schema describing one event (as OpenAPI 3.2's
  ``itemSchema`` does, and as tools read ``schema`` for event streams under 3.1).

``python -m runyard.http.openapi_export > docs/openapi.json`` writes the document of a default
app (a test fails while the committed copy is stale).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from runyard.http.bodies import ErrorBody

__all__ = ["EVENT_STREAM", "error_responses", "install_openapi"]

_ERRORS = {
    400: "a bad identity header or cursor (`field` names it); an agent spec that cannot serve "
    "with this catalog (`invalid_agent_spec`, `fields` lists each fault)",
    401: "the admin API needs `Authorization: Bearer <RUNYARD_ADMIN_TOKEN>` (`admin_unauthorized`)",
    403: "the admin API is off: RUNYARD_ADMIN_TOKEN is not set (`admin_disabled`)",
    404: "no such thread, confirmation or agent for this caller (`agent_not_found`), no such "
    "stored agent version (`agent_version_not_found`), or no catalog served "
    "(`catalog_not_served`)",
    409: "the thread's run is active, busy, or the confirmation was answered; or the agent "
    "version the run needs left the catalog (`agent_version_unavailable`)",
    410: "the confirmation expired (`confirmation_expired`): its run waited longer than "
    "RUNYARD_CHECKPOINT_TTL_SECONDS and has ended",
    413: "the body is larger than RUNYARD_MAX_BODY_BYTES",
    422: "a malformed body or parameter (`fields` lists each), or a body the service refuses",
    429: "a limit of the tenant refused the new run, nothing was stored or counted: as many "
    "runs started in the last minute as the agent's `requests_per_minute` or "
    "RUNYARD_TENANT_REQUESTS_PER_MINUTE allows (`rate_limited`), or as many runs running as the "
    "agent's `concurrent_runs` or RUNYARD_TENANT_CONCURRENT_RUNS allows "
    "(`concurrent_runs_limited`); counted in the database, so every replica shares them. "
    "`Retry-After` says when to try again",
    503: "the service is starting or stopping",
}
_HEADERS: dict[int, dict[str, Any]] = {
    429: {
        "headers": {
            "Retry-After": {
                "description": "seconds until a slot frees (`rate_limited`: when the oldest "
                "request leaves the minute's window), or a short wait (5) before trying again "
                "(`concurrent_runs_limited`: nobody knows when a running run ends)",
                "schema": {"type": "integer", "minimum": 1},
            }
        }
    }
}
_FASTAPI_422 = "#/components/schemas/HTTPValidationError"
_FASTAPI_SCHEMAS = ("HTTPValidationError", "ValidationError")

_SSE = "text/event-stream"
_JSON = "application/json"
_SSE_EVENT: dict[str, Any] = {
    "oneOf": [
        {
            "type": "object",
            "required": ["event", "id", "data"],
            "properties": {
                "event": {"const": "message"},
                "id": {"type": "string", "pattern": "^[0-9]+$"},
                "data": {
                    "type": "string",
                    "contentMediaType": "application/json",
                    "description": "one wire event (docs/events.schema.json)",
                },
            },
        },
        {
            "type": "object",
            "required": ["event", "data"],
            "properties": {
                "event": {"const": "server-shutdown"},
                "data": {"type": "string", "contentMediaType": "application/json"},
            },
        },
    ]
}
"""One event of an event stream (what ``schema`` describes for ``text/event-stream``)."""
EVENT_STREAM: dict[str, Any] = {
    "description": "Server-Sent Events: `retry: 1000` first, then one frame per wire event "
    "(`id` = the event id, `data` = the event's JSON, see docs/protocol.md); when the server "
    "goes away, a last `server-shutdown` frame without an id. The schema describes one event.",
    "content": {_SSE: {"schema": _SSE_EVENT}},
}
"""The 200 response of ``GET /v1/events/{threadId}``."""


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error responses a route can give, each with the ``ErrorBody`` schema."""
    return {
        status: {"model": ErrorBody, "description": _ERRORS[status], **_HEADERS.get(status, {})}
        for status in statuses
    }


def install_openapi(app: FastAPI) -> None:
    """Make ``app.openapi()`` (and ``/openapi.json``) serve the corrected document."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _document(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented override


def _document(app: FastAPI) -> dict[str, Any]:
    document = get_openapi(
        title=app.title,
        version=app.version,
        summary=app.summary,
        description=app.description,
        routes=app.routes,
    )
    for path in document["paths"].values():
        for operation in path.values():
            _drop_fastapi_422(operation["responses"])
            _fix_media_types(operation["responses"])
    schemas = document["components"]["schemas"]
    for name in _FASTAPI_SCHEMAS:
        schemas.pop(name, None)
    return document


def _fix_media_types(responses: dict[str, Any]) -> None:
    """On a route whose response class is not JSON, FastAPI gives every response that media
    type and merges its ``{"type": "string"}`` into ours: errors are JSON, streams are events."""
    for status, response in responses.items():
        content = response.get("content", {})
        if _SSE not in content:
            continue
        if status.startswith(("4", "5")):
            response["content"] = {_JSON: content[_SSE]}
        else:
            content[_SSE]["schema"] = _SSE_EVENT


def _drop_fastapi_422(responses: dict[str, Any]) -> None:
    schema = responses.get("422", {}).get("content", {}).get("application/json", {}).get("schema")
    if schema == {"$ref": _FASTAPI_422}:
        del responses["422"]
