"""``call_failure``: a refused gRPC call as the ``ApplicationError`` Temporal retries, or not.

The activity fails with runyard's stable error code as the error's ``type`` (``run_busy``,
``rate_limited``, …; the status code's name when the server sent none). Input and credentials
that are wrong stay wrong however often the call is made: those fail the step at once, the rest
go to the workflow's retry policy.
"""

from __future__ import annotations

import grpc
from temporalio.exceptions import ApplicationError

from runyard.grpc import ERROR_CODE

__all__ = ["call_failure", "error_code"]

_FINAL_STATUSES = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.UNIMPLEMENTED,
}
# FAILED_PRECONDITION is final, except a run between two states, which settles in a moment.
_PASSING_PRECONDITIONS = {"run_busy"}


def error_code(exc: grpc.aio.AioRpcError) -> str:
    """runyard's error code of the refusal (``runyard-error-code``), else ``""``."""
    for key, value in exc.trailing_metadata() or ():
        if key == ERROR_CODE:
            return str(value)
    return ""


def call_failure(exc: grpc.aio.AioRpcError) -> ApplicationError:
    """The activity's failure for a refused call."""
    status = exc.code()
    code = error_code(exc)
    final = status in _FINAL_STATUSES or (
        status == grpc.StatusCode.FAILED_PRECONDITION and code not in _PASSING_PRECONDITIONS
    )
    return ApplicationError(
        f"{status.name}: {exc.details()}", type=code or status.name, non_retryable=final
    )
