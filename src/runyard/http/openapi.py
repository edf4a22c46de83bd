"""The OpenAPI document: FastAPI's, made to say what the API really answers.

- Every error is the ``ErrorBody`` envelope; each route lists the statuses it can answer with
  ``error_responses``. Their bodies name their schema by reference, written into the document
  once (``install_openapi``'s ``bodies``): a ``{"model": …}`` response would have FastAPI build
  a validator for it on every route that lists it (~350 for the app's error statuses, ~4% of
  ``runyard serve``'s start) only to write the same schema each time. FastAPI adds a 422 with
  its ``{"detail": …}`` body to every route with parameters, which runyard never sends: those
  are removed, with their schemas.
- The document is the served mode's (``RUNYARD_AUTH``): with ``keys`` every route that answers
  401 needs the ``bearer`` scheme; otherwise only the admin routes do, while
  ``RUNYARD_ADMIN_TOKEN`` is set; the identity headers are parameters only with ``proxy`` (the
  other modes refuse them).
- Every route may answer ``500 internal_error`` (a bug: an exception nobody mapped); it is
  described once, here, for all of them.
- An event stream is ``text/event-stream``, its schema describing one event (as OpenAPI 3.2's
  ``itemSchema`` does, and as tools read ``schema`` for event streams under 3.1).

``python -m runyard.http.openapi_export > docs/openapi.json`` writes the document of a default
app (a test fails while the committed copy is stale).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.encoders import jsonable_encoder
from fastapi.openapi.models import Schema
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from runyard.config import Settings
from runyard.http.bodies import ErrorBody
from runyard.http.identity import TENANT_HEADER, TICKET_PARAM, USER_HEADER

__all__ = ["EVENT_STREAM", "METRICS_PATH", "error_responses", "install_openapi"]

METRICS_PATH = "/metrics"
"""The Prometheus scrape path, open or behind its own token (``RUNYARD_METRICS_TOKEN``)."""

_ERRORS = {
    400: "a bad identity header (`invalid_identity`), one sent to a server that does not read "
    "them (`untrusted_identity_header`: only RUNYARD_AUTH=proxy does), or a bad cursor (`field` "
    "names it); an upload cut off before its end (`upload_truncated`) or a multipart form that "
    "is malformed or has no `file` field (`malformed_upload`); an agent spec that cannot serve with this catalog (`invalid_agent_spec`, "
    "`fields` lists each fault)",
    401: "RUNYARD_AUTH=keys and no valid API key: missing, malformed, unknown, revoked and "
    "expired keys all get this one answer (`unauthenticated`); on admin routes in the other "
    "modes, no `Authorization: Bearer <RUNYARD_ADMIN_TOKEN>` (`admin_unauthorized`). "
    "`WWW-Authenticate: Bearer` says what to send",
    403: "an admin route called with a `member` key (`admin_required`), for a tenant the admin "
    "key may not manage (`tenant_forbidden`, `field` names it), or while the admin API is off "
    "(`admin_disabled`: RUNYARD_AUTH is none or proxy and RUNYARD_ADMIN_TOKEN is not set)",
    404: "no such thread, confirmation, file (`file_not_found`) or agent for this caller "
    "(`agent_not_found`), no such "
    "stored agent version (`agent_version_not_found`), or no catalog served "
    "(`catalog_not_served`)",
    409: "the thread's run is active, busy, or the confirmation was answered; or the agent "
    "version the run needs left the catalog (`agent_version_unavailable`)",
    410: "the confirmation expired (`confirmation_expired`): its run waited longer than "
    "RUNYARD_CHECKPOINT_TTL_SECONDS and has ended",
    413: "the body is larger than RUNYARD_MAX_BODY_BYTES (`body_too_large`); an upload larger "
    "than RUNYARD_MAX_FILE_BYTES (`file_too_large`) or past the tenant's "
    "RUNYARD_TENANT_FILE_QUOTA_BYTES (`file_quota_exceeded`), `field` naming `file`",
    416: "the `Range` asks for none of the file's bytes (`range_not_satisfiable`); "
    "`Content-Range: bytes */<size>` says how many it has",
    422: "a malformed body or parameter (`fields` lists each), or a body the service refuses",
    429: "a limit of the tenant refused the new run, nothing was stored or counted: as many "
    "runs started in the last minute as the agent's `requests_per_minute` or "
    "RUNYARD_TENANT_REQUESTS_PER_MINUTE allows (`rate_limited`), or as many runs running as the "
    "agent's `concurrent_runs` or RUNYARD_TENANT_CONCURRENT_RUNS allows "
    "(`concurrent_runs_limited`); counted in the database, so every replica shares them. "
    "`Retry-After` says when to try again",
    503: "the service is starting or stopping (`not_ready`; stopping: `Retry-After` says when "
    "to try again — a load balancer sends it to another replica, or the server is back), or "
    "the database failed under the request (`storage_unavailable`)",
}
_HEADERS: dict[int, dict[str, Any]] = {
    401: {
        "headers": {
            "WWW-Authenticate": {
                "description": "`Bearer`: send `Authorization: Bearer <key>`",
                "schema": {"type": "string"},
            }
        }
    },
    429: {
        "headers": {
            "Retry-After": {
                "description": "seconds until a slot frees (`rate_limited`: when the oldest "
                "request leaves the minute's window), or a short wait (5) before trying again "
                "(`concurrent_runs_limited`: nobody knows when a running run ends)",
                "schema": {"type": "integer", "minimum": 1},
            }
        }
    },
    503: {
        "headers": {
            "Retry-After": {
                "description": "sent while the server stops: seconds (5) before trying again",
                "schema": {"type": "integer", "minimum": 1},
            }
        }
    },
}
_BEARER = {
    "type": "http",
    "scheme": "bearer",
    "description": "an API key (`ryk_…`, `runyard keys create`) with RUNYARD_AUTH=keys; on the "
    "admin routes in the other modes, RUNYARD_ADMIN_TOKEN (docs/security.md)",
}
_SSE = "text/event-stream"
_JSON = "application/json"
_SCHEMAS = "#/components/schemas/"
_ERROR_CONTENT = {_JSON: {"schema": {"$ref": _SCHEMAS + ErrorBody.__name__}}}
"""An error response's body: ``ErrorBody``, by reference (``install_openapi`` writes its schema)."""
_INTERNAL_ERROR: dict[str, Any] = {
    "description": "a bug: an exception nobody mapped. The body is always "
    '`{"error": {"code": "internal_error", "message": "internal server error"}}`; what went '
    "wrong is only in the server's (redacted) log",
    "content": _ERROR_CONTENT,
}
"""The ``500`` every route may answer (``runyard.http.errors``)."""
_IDENTITY_HEADERS = (TENANT_HEADER, USER_HEADER)
_FASTAPI_422 = _SCHEMAS + "HTTPValidationError"
_FASTAPI_SCHEMAS = ("HTTPValidationError", "ValidationError")
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
        status: {
            "description": _ERRORS[status],
            **_HEADERS.get(status, {}),
            "content": _ERROR_CONTENT,
        }
        for status in statuses
    }


def install_openapi(app: FastAPI, bodies: Sequence[type[BaseModel]] = ()) -> None:
    """Make ``app.openapi()`` (and ``/openapi.json``) serve the corrected document, with the
    schemas of ``ErrorBody`` and ``bodies``: the models whose schema routes name by reference."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _document(app, (ErrorBody, *bodies))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented override


def _document(app: FastAPI, bodies: Sequence[type[BaseModel]]) -> dict[str, Any]:
    settings = app.state.runyard.settings
    document = get_openapi(
        title=app.title,
        version=app.version,
        summary=app.summary,
        description=app.description,
        routes=app.routes,
    )
    for route, path in document["paths"].items():
        for operation in path.values():
            _drop_fastapi_422(operation["responses"])
            _fix_media_types(operation["responses"])
            if route == METRICS_PATH:  # its own token, not the API's credential
                _metrics_token(operation, settings)
            else:
                _authenticate(operation, settings, admin=route.startswith("/v1/admin/"))
            operation["responses"].setdefault("500", _INTERNAL_ERROR)
    document["components"]["securitySchemes"] = {"bearer": _BEARER}
    schemas = document["components"]["schemas"]
    for name in _FASTAPI_SCHEMAS:
        schemas.pop(name, None)
    _, referenced = models_json_schema(
        [(body, "serialization") for body in bodies], ref_template=_SCHEMAS + "{model}"
    )
    for name, schema in referenced.get("$defs", {}).items():
        if name not in schemas:  # written as FastAPI writes a schema: its fields' order
            schemas[name] = jsonable_encoder(Schema(**schema), by_alias=True, exclude_none=True)
    document["components"]["schemas"] = dict(sorted(schemas.items()))  # FastAPI's order
    return document


def _metrics_token(operation: dict[str, Any], settings: Settings) -> None:
    """``/metrics`` asks for a bearer token only when RUNYARD_METRICS_TOKEN is set."""
    if settings.metrics_token:
        operation["security"] = [{"bearer": []}]
    else:
        operation["responses"].pop("401", None)


def _authenticate(operation: dict[str, Any], settings: Settings, *, admin: bool) -> None:
    """The bearer scheme where this mode asks for it (on the admin routes of the other modes,
    only while RUNYARD_ADMIN_TOKEN turns them on: off, no credential opens them); identity
    headers and the stream ticket only where the mode reads them."""
    needs_key = settings.auth == "keys" or (admin and bool(settings.admin_token))
    if needs_key and "401" in operation["responses"]:
        operation["security"] = [{"bearer": []}]
    unread = (() if settings.auth == "proxy" else _IDENTITY_HEADERS) + (
        () if settings.auth == "keys" else (TICKET_PARAM,)
    )
    if unread and "parameters" in operation:
        kept = [p for p in operation["parameters"] if p["name"] not in unread]
        if kept:
            operation["parameters"] = kept
        else:
            del operation["parameters"]


def _fix_media_types(responses: dict[str, Any]) -> None:
    """On a route whose response class is not JSON, FastAPI gives every response that media
    type and merges its ``{"type": "string"}`` into ours: errors are JSON, streams are events."""
    for status, response in responses.items():
        content = response.get("content", {})
        if _SSE not in content:
            continue
        if status.startswith(("4", "5")):
            response["content"] = {_JSON: content[_SSE]}
        elif content[_SSE].get("schema", {}).get("type") == "string":
            # FastAPI's ``string`` is merged into /v1's event schema; a face's stream declares
            # its own frames (an ``object``), left as they are.
            content[_SSE]["schema"] = _SSE_EVENT


def _drop_fastapi_422(responses: dict[str, Any]) -> None:
    schema = responses.get("422", {}).get("content", {}).get("application/json", {}).get("schema")
    if schema == {"$ref": _FASTAPI_422}:
        del responses["422"]
