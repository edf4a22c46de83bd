"""One table from runyard's exceptions to HTTP status codes, and the JSON error body.

Every error is ``{"error": {"code", "message", ...}}`` with a 4xx code that names the problem;
validation errors list each offending field. Nothing already stored is touched on the way out.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from runyard.service import (
    AgentRequired,
    AgentVersionNotFound,
    AgentVersionUnavailable,
    ConfirmationAnswered,
    ConfirmationExpired,
    ConfirmationNotFound,
    InvalidAgentSpec,
    InvalidAnswer,
    InvalidThreadId,
    LimitReached,
    RunActive,
    RunBusy,
    ServiceError,
    ThreadNotFound,
    UnknownAgent,
)
from runyard.storage import StorageError

__all__ = ["STATUS_CODES", "ApiError", "error_body", "install_error_handlers", "status_for"]

logger = logging.getLogger("runyard.http")

STATUS_CODES: dict[type[Exception], int] = {
    ThreadNotFound: 404,
    ConfirmationNotFound: 404,
    UnknownAgent: 404,
    AgentVersionNotFound: 404,
    InvalidAgentSpec: 400,
    AgentRequired: 422,
    AgentVersionUnavailable: 409,
    InvalidAnswer: 422,
    InvalidThreadId: 422,
    RunActive: 409,
    RunBusy: 409,
    ConfirmationAnswered: 409,
    ConfirmationExpired: 410,
    LimitReached: 429,
}
"""The status of each service error (a subclass not listed takes its nearest listed base's)."""


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
    """The HTTP status of a service error, by the table above."""
    for cls in type(exc).__mro__:
        if cls in STATUS_CODES:
            return STATUS_CODES[cls]
    return 400


def error_body(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """The JSON body of every error response."""
    return {"error": {"code": code, "message": message, **extra}}


def install_error_handlers(app: FastAPI) -> None:
    """Map service errors, API errors, validation errors and HTTP errors to JSON bodies."""

    async def service_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ServiceError)
        body = error_body(exc.code, str(exc), **exc.details())
        return JSONResponse(body, status_code=status_for(exc), headers=exc.headers() or None)

    async def api_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        extra = {"field": exc.field} if exc.field else {}
        body = error_body(exc.code, str(exc), **extra)
        return JSONResponse(body, status_code=exc.status, headers=exc.headers)

    async def invalid_request(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return _invalid_request(
            [
                {"field": ".".join(str(p) for p in error["loc"]), "message": error["msg"]}
                for error in exc.errors()
            ]
        )

    async def storage_error(_: Request, exc: Exception) -> JSONResponse:
        # The database failed under a request (full disk, lost connection): nothing was half
        # done that a retry would trip over, so it is "try again", not a server bug.
        logger.error("storage failed under a request: %s", exc)
        body = error_body("storage_unavailable", f"the store failed; retry shortly: {exc}")
        return JSONResponse(body, status_code=503)

    async def http_error(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        if isinstance(exc.__cause__, UnicodeDecodeError):
            # FastAPI answers a JSON body that is not UTF-8 with a bare 400 (it catches only
            # JSONDecodeError); for the client it is a malformed body like any other.
            return _invalid_request([{"field": "body", "message": "the body is not valid UTF-8"}])
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(
            error_body(code, str(exc.detail)), status_code=exc.status_code, headers=exc.headers
        )

    app.add_exception_handler(ServiceError, service_error)
    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RequestValidationError, invalid_request)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(StorageError, storage_error)


def _invalid_request(fields: list[dict[str, str]]) -> JSONResponse:
    """422 ``invalid_request`` listing each offending field."""
    message = "; ".join(f"{f['field']}: {f['message']}" for f in fields)
    body = error_body("invalid_request", message or "invalid request", fields=fields)
    return JSONResponse(body, status_code=422)
