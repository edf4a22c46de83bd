"""OpenAI's error envelope, ``{"error": {"message", "type", "param", "code"}}``, for every error
under ``/openai/v1``: ``openai_error`` reshapes runyard's own error body (the app's error
handlers call it for this face's paths), so the ``openai`` client raises the exception it
raises for OpenAI's own answers (``NotFoundError``, ``AuthenticationError``, ...).

``code`` stays runyard's (``agent_not_found``, ``run_active``, ...), except an agent the caller
does not have, which is OpenAI's ``model_not_found`` with ``param`` ``model``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

__all__ = ["OpenAIErrorBody", "openai_error", "openai_error_responses"]

_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    409: "invalid_request_error",
    410: "invalid_request_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
}
"""OpenAI's ``type`` by status; 5xx are ``server_error``."""

_MODEL_CODES = frozenset({"agent_not_found", "agent_version_not_found", "agent_required"})
"""runyard's codes for a ``model`` that names no agent (or no version) of the caller's."""


class OpenAIError(BaseModel):
    """What went wrong, as OpenAI says it."""

    message: str
    type: str = Field(
        description="`invalid_request_error`, `authentication_error`, `permission_error`, "
        "`not_found_error`, `rate_limit_error` or `server_error`"
    )
    param: str | None = Field(
        description="the request field at fault, dotted (`messages.0.content`), or null"
    )
    code: str | None = Field(description="runyard's error code, or `model_not_found`")


class OpenAIErrorBody(BaseModel):
    """OpenAI's error envelope."""

    error: OpenAIError


def openai_error(status: int, body: dict[str, Any]) -> dict[str, Any]:
    """runyard's error ``body`` (``{"error": {"code", "message", "field"?, "fields"?}}``) of
    ``status``, as OpenAI's envelope."""
    error = body["error"]
    code, param = error["code"], _param(error)
    if code in _MODEL_CODES:
        code, param = "model_not_found", "model"
    kind = _TYPES.get(status, "server_error")
    return {"error": {"message": error["message"], "type": kind, "param": param, "code": code}}


def openai_error_responses(
    errors: Callable[..., dict[int | str, dict[str, Any]]], *statuses: int
) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of ``statuses`` (as the app describes them, ``errors``), each
    with this envelope as its body."""
    return {
        status: {**response, "model": OpenAIErrorBody}
        for status, response in errors(*statuses).items()
    }


def _param(error: dict[str, Any]) -> str | None:
    """The first field at fault, without the ``body.`` of a body field."""
    fields = error.get("fields") or []
    field = fields[0]["field"] if fields else error.get("field")
    if not isinstance(field, str):
        return None
    return field.removeprefix("body.")
