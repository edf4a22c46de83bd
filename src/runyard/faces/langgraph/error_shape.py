"""LangGraph Server's error body, ``{"detail": ...}``, for every error under ``/langgraph``:
``langgraph_error`` reshapes runyard's own error body (the app's error handlers call it for this
face's paths), so ``langgraph_sdk`` raises the exception it raises for LangGraph Server's own
answers (``NotFoundError``, ``ConflictError``, ``UnprocessableEntityError``, ...) with the
message in ``detail``; ``code`` (runyard's) and ``param`` (the field at fault) ride beside it,
where the SDK's ``APIError`` reads them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

__all__ = ["ErrorResponses", "LangGraphErrorBody", "langgraph_error", "langgraph_errors"]


class LangGraphErrorBody(BaseModel):
    """What went wrong, as LangGraph Server says it, with runyard's code and field."""

    detail: str
    code: str = Field(description="runyard's error code (`thread_not_found`, `run_active`, ...)")
    param: str | None = Field(
        default=None, description="the request field at fault, dotted (`command.resume`)"
    )


def langgraph_error(status: int, body: dict[str, Any]) -> dict[str, Any]:
    """runyard's error ``body`` (``{"error": {"code", "message", "field"?, "fields"?}}``) of
    ``status``, as LangGraph Server's ``{"detail"}`` with runyard's ``code`` and ``param``."""
    error = body["error"]
    fields = [
        {**f, "field": str(f["field"]).removeprefix("body.")} for f in error.get("fields") or []
    ]
    field = fields[0]["field"] if fields else error.get("field")
    detail = "; ".join(f"{f['field']}: {f['message']}" for f in fields) or error["message"]
    param = field if isinstance(field, str) else None
    return {"detail": detail, "code": error["code"], "param": param}


# By reference, as the app's own error responses name theirs: the app's document holds the schema
# (the app gives ``LangGraphErrorBody`` to ``runyard.http.openapi.install_openapi``).
_BODY = {"application/json": {"schema": {"$ref": "#/components/schemas/LangGraphErrorBody"}}}

ErrorResponses = Callable[..., dict[int | str, dict[str, Any]]]
"""The OpenAPI ``responses`` of the given error statuses (``FaceWiring.errors``)."""


def langgraph_errors(errors: ErrorResponses) -> ErrorResponses:
    """``errors`` (the app's) with this body, as the face's routes answer them: the statuses
    asked for, a 500 (a bug), and the 413 the app's body limit answers before any route, in
    runyard's own body."""

    def shaped(*statuses: int) -> dict[int | str, dict[str, Any]]:
        described: dict[int | str, dict[str, Any]] = {
            status: {**response, "content": _BODY} for status, response in errors(*statuses).items()
        }
        bug = {"description": "a bug: an exception nobody mapped", "content": _BODY}
        return {**described, **errors(413), 500: bug}

    return shaped
