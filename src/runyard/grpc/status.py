"""One table from the kinds of runyard's errors to gRPC status codes, and how a call ends
with one.

A refused call ends with the code, a message (the field first when one is to blame:
``thread_id: …``) and the trailing metadata ``runyard-error-code`` (runyard's stable code, as
HTTP error bodies have it) and ``runyard-error-field``. An error nobody mapped is a bug:
``INTERNAL`` with a fixed message, its text and traceback logged (redacted) only.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Literal, TypeVar

import grpc

from runyard.redaction import SecretRedactor
from runyard.service import (
    ErrorKind,
    InvalidAnswer,
    InvalidThreadId,
    ServiceError,
    UnknownAgent,
)
from runyard.service.content import ContentRefused
from runyard.storage import StorageError

__all__ = ["ERROR_FIELD", "ERROR_CODE", "STATUS_CODES", "CallError", "Refusals", "status_for"]

logger = logging.getLogger("runyard.grpc")

ERROR_CODE = "runyard-error-code"
ERROR_FIELD = "runyard-error-field"

Code = Literal[
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "FAILED_PRECONDITION",
    "RESOURCE_EXHAUSTED",
    "UNAUTHENTICATED",
    "UNAVAILABLE",
    "ABORTED",
]

STATUS_CODES: dict[ErrorKind, grpc.StatusCode] = {
    "rejected": grpc.StatusCode.INVALID_ARGUMENT,
    "invalid": grpc.StatusCode.INVALID_ARGUMENT,
    "too_large": grpc.StatusCode.INVALID_ARGUMENT,
    "not_found": grpc.StatusCode.NOT_FOUND,
    "unresolved": grpc.StatusCode.FAILED_PRECONDITION,
    "conflict": grpc.StatusCode.FAILED_PRECONDITION,
    "running": grpc.StatusCode.ALREADY_EXISTS,
    "expired": grpc.StatusCode.FAILED_PRECONDITION,
    "limited": grpc.StatusCode.RESOURCE_EXHAUSTED,
    "unavailable": grpc.StatusCode.UNAVAILABLE,
}
"""The code of each kind of service error (``ServiceError.kind``); HTTP's table is
``runyard.http.errors.STATUS_CODES``. A call past its deadline ends ``DEADLINE_EXCEEDED`` by
gRPC itself (the run goes on: retry with the same idempotency key)."""

_FIELDS: dict[type[Exception], str] = {
    InvalidThreadId: "thread_id",
    UnknownAgent: "agent_id",
    InvalidAnswer: "answer",
}


class CallError(Exception):
    """A refusal of the gRPC layer itself (bad field, no key, not ready)."""

    def __init__(self, code: Code, error_code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = grpc.StatusCode[code]
        self.code = error_code
        self.field = field


def status_for(exc: ServiceError) -> grpc.StatusCode:
    """The gRPC code of a service error, by its kind."""
    return STATUS_CODES[exc.kind]


def _refusal(exc: Exception) -> CallError:
    if isinstance(exc, CallError):
        return exc
    if isinstance(exc, ContentRefused):  # names its own field
        refusal = CallError("INVALID_ARGUMENT", exc.code, exc.reason, exc.field)
        refusal.status = status_for(exc)
        return refusal
    if isinstance(exc, ServiceError):
        field = next((f for cls, f in _FIELDS.items() if isinstance(exc, cls)), None)
        refusal = CallError("INVALID_ARGUMENT", exc.code, str(exc), field)
        refusal.status = status_for(exc)
        return refusal
    if isinstance(exc, StorageError):
        # The database failed under a call: nothing half done that a retry would trip over.
        logger.error("storage failed under a gRPC call: %s", exc)
        return CallError(
            "UNAVAILABLE", "storage_unavailable", f"the store failed; retry shortly: {exc}"
        )
    logger.exception("a gRPC call failed")
    refusal = CallError("INVALID_ARGUMENT", "internal_error", "internal server error")
    refusal.status = grpc.StatusCode.INTERNAL
    return refusal


async def _abort(
    context: grpc.aio.ServicerContext, exc: Exception, redactor: SecretRedactor
) -> None:
    refusal = _refusal(exc)
    trailers: list[tuple[str, str]] = [(ERROR_CODE, refusal.code)]
    message = redactor.redact(str(refusal))
    if refusal.field is not None:
        trailers.append((ERROR_FIELD, refusal.field))
        message = f"{refusal.field}: {message}"
    context.set_trailing_metadata(tuple(trailers))
    await context.abort(refusal.status, message)


Request = TypeVar("Request")
Response = TypeVar("Response")
Unary = Callable[[Request, grpc.aio.ServicerContext], Awaitable[Response]]
Streaming = Callable[[Request, grpc.aio.ServicerContext], AsyncIterator[Response]]


class Refusals:
    """Decorators that end a call with the table's status when its handler raises."""

    def __init__(self, redactor: SecretRedactor) -> None:
        self.redactor = redactor

    def unary(self, handler: Unary[Request, Response]) -> Unary[Request, Response]:
        async def guarded(request: Request, context: grpc.aio.ServicerContext) -> Response:
            try:
                return await handler(request, context)
            except grpc.aio.AbortError:
                raise
            except Exception as exc:
                await _abort(context, exc, self.redactor)
                raise AssertionError("abort raises") from exc

        return guarded

    def streaming(self, handler: Streaming[Request, Response]) -> Streaming[Request, Response]:
        async def guarded(
            request: Request, context: grpc.aio.ServicerContext
        ) -> AsyncIterator[Response]:
            try:
                async for item in handler(request, context):
                    yield item
            except grpc.aio.AbortError:
                raise
            except Exception as exc:
                await _abort(context, exc, self.redactor)

        return guarded
