"""One table from the kinds of runyard's errors to HTTP status codes, and the JSON error body.

Every error is ``{"error": {"code", "message", ...}}`` with a 4xx code that names the problem;
validation errors list each offending field. Nothing already stored is touched on the way out.
Every body passes the app's ``SecretRedactor`` (an exception's text may quote a URL with a
password, or a key); an exception nobody mapped is a bug, answered 500 ``internal_error`` with a
fixed message — its text and traceback go to the (redacted) log only. A face that speaks another
protocol's errors (the OpenAI-compatible face) gives an ``ErrorShape`` for its path prefix, and
its paths' bodies are reshaped by it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match

from runyard.redaction import SecretRedactor
from runyard.service import ErrorKind, ServiceError
from runyard.storage import StorageError

__all__ = [
    "STATUS_CODES",
    "ApiError",
    "ErrorShape",
    "api_error_body",
    "error_body",
    "install_error_handlers",
    "invalid_request_body",
    "service_error_body",
    "storage_error_body",
    "status_for",
]

logger = logging.getLogger("runyard.http")

STATUS_CODES: dict[ErrorKind, int] = {
    "rejected": 400,
    "invalid": 422,
    "too_large": 413,
    "not_found": 404,
    "unresolved": 422,
    "conflict": 409,
    "running": 409,
    "expired": 410,
    "limited": 429,
    "unavailable": 503,
}
"""The status of each kind of service error (``ServiceError.kind``); gRPC's table is
``runyard.grpc.status.STATUS_CODES``."""


ErrorShape = Callable[[int, dict[str, Any]], dict[str, Any]]
"""Reshapes runyard's error body of a status into another protocol's."""


class ApiError(Exception):
    """An error raised by the HTTP layer itself (bad header, bad cursor, not ready)."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.field = field
        self.headers = headers


def status_for(exc: ServiceError) -> int:
    """The HTTP status of a service error, by its kind."""
    return STATUS_CODES[exc.kind]


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The JSON body of every error response."""
    return {"error": {"code": code, "message": message, **extra}}


def service_error_body(exc: ServiceError) -> dict[str, Any]:
    """The body of a service error (its status: ``status_for``)."""
    return error_body(exc.code, str(exc), **exc.details())


def api_error_body(exc: ApiError) -> dict[str, Any]:
    """The body of an HTTP-layer error (its status: ``exc.status``)."""
    extra = {"field": exc.field} if exc.field else {}
    return error_body(exc.code, str(exc), **extra)


def storage_error_body(exc: StorageError) -> dict[str, Any]:
    """The body of the 503 for a store that failed under a request."""
    return error_body("storage_unavailable", f"the store failed; retry shortly: {exc}")


def invalid_request_body(fields: list[dict[str, str]]) -> dict[str, Any]:
    """The body of the 422 ``invalid_request`` listing each offending field."""
    message = "; ".join(f"{f['field']}: {f['message']}" for f in fields)
    return error_body("invalid_request", message or "invalid request", fields=fields)


def install_error_handlers(app: FastAPI, shapes: Mapping[str, ErrorShape] | None = None) -> None:
    """Map service errors, API errors, validation errors and HTTP errors to JSON bodies;
    ``shapes`` reshapes the bodies of the paths under each of its prefixes."""
    app.state.error_shapes = dict(shapes or {})

    async def service_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ServiceError)
        body = service_error_body(exc)
        return _response(request, body, status_for(exc), exc.headers() or None)

    async def api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return _response(request, api_error_body(exc), exc.status, exc.headers)

    async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return _invalid_request(
            request,
            [
                {"field": ".".join(str(p) for p in error["loc"]), "message": error["msg"]}
                for error in exc.errors()
            ],
        )

    async def storage_error(request: Request, exc: Exception) -> JSONResponse:
        # The database failed under a request (full disk, lost connection): nothing was half
        # done that a retry would trip over, so it is "try again", not a server bug.
        assert isinstance(exc, StorageError)
        logger.error("storage failed under a request: %s", exc)
        return _response(request, storage_error_body(exc), 503)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        if isinstance(exc.__cause__, UnicodeDecodeError):
            # FastAPI answers a JSON body that is not UTF-8 with a bare 400 (it catches only
            # JSONDecodeError); for the client it is a malformed body like any other.
            fields = [{"field": "body", "message": "the body is not valid UTF-8"}]
            return _invalid_request(request, fields)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        body = error_body(code, str(exc.detail))
        headers = exc.headers
        if exc.status_code == 405:
            headers = {**(headers or {}), "Allow": _allowed_methods(request)}
        return _response(request, body, exc.status_code, headers)

    async def internal_error(request: Request, exc: Exception) -> JSONResponse:
        # Starlette logs the exception with its traceback after this answer; the body says
        # nothing of it, since its text may hold anything.
        return _response(request, error_body("internal_error", "internal server error"), 500)

    app.add_exception_handler(ServiceError, service_error)
    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(StorageError, storage_error)
    app.add_exception_handler(Exception, internal_error)


_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def _allowed_methods(request: Request) -> str:
    """Every method some route of this path takes. Starlette's 405 names only the first route
    that matched the path, and a path may have one route per method (``/v1/files/{fileId}``)."""
    routes = request.app.router.routes
    return ", ".join(
        method
        for method in _METHODS
        if any(
            route.matches({**request.scope, "method": method})[0] is Match.FULL for route in routes
        )
    )


def _response(
    request: Request, body: dict[str, Any], status: int, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """The error body, in the shape of its path's face, redacted with the app's redactor."""
    body = _shaped(request, status, body)
    redactor = getattr(getattr(request.app.state, "runyard", None), "redactor", None)
    if not isinstance(redactor, SecretRedactor):
        redactor = _SHAPES_ONLY
    return JSONResponse(redactor.redact_data(body), status_code=status, headers=headers)


_SHAPES_ONLY = SecretRedactor()


def _shaped(request: Request, status: int, body: dict[str, Any]) -> dict[str, Any]:
    path = request.url.path
    shapes: dict[str, ErrorShape] = getattr(request.app.state, "error_shapes", {})
    for prefix, shape in shapes.items():
        if path == prefix or path.startswith(prefix + "/"):
            return shape(status, body)
    return body


def _invalid_request(request: Request, fields: list[dict[str, str]]) -> JSONResponse:
    """422 ``invalid_request`` listing each offending field."""
    return _response(request, invalid_request_body(fields), 422)
