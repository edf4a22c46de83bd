"""A suspended tool call → the ``confirmation-request`` payload the user answers.

Approval gates suspend with ``{"type": "approval", ...}``; a tool's own ``Suspend`` payload may
carry the protocol's rich fields (``inputType``, ``questions``, ``tasks``, ``introMessage``,
``severity``, ``message``, …, camelCase or snake_case). Each optional field is kept only when it
is valid, as n8n does, so one malformed field never loses the question.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from runyard.protocol import (
    ConfirmationRequestEvent,
    ConfirmationRequestPayload,
    FilesystemRequestEvent,
    FilesystemRequestPayload,
)
from runyard.runtime import PendingSuspend
from runyard.service.tools.client_files import CLIENT_FILES

__all__ = ["DEFAULT_MESSAGE", "confirmation_payload", "is_filesystem_request", "question_event"]

DEFAULT_MESSAGE = "Confirmation required"
_SEVERITIES = ("info", "warning", "destructive")
_BASE_FIELDS = {"request_id", "tool_call_id", "tool_name", "args", "severity", "message"}
_OPTIONAL = {
    name: field.alias or name
    for name, field in ConfirmationRequestPayload.model_fields.items()
    if name not in _BASE_FIELDS
}


def confirmation_payload(request_id: str, suspension: PendingSuspend) -> ConfirmationRequestPayload:
    """The question for ``suspension``, identified by ``request_id``."""
    raw = suspension.payload
    data: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if isinstance(raw, str) and raw:
        data = {"message": raw}
    severity = data.get("severity")
    message = data.get("message")
    base = ConfirmationRequestPayload(
        request_id=request_id,
        tool_call_id=suspension.tool_call_id,
        tool_name=suspension.tool_name,
        args=suspension.args,
        severity=severity if severity in _SEVERITIES else "warning",
        message=message if isinstance(message, str) and message else _default_message(suspension),
    )
    extras: dict[str, Any] = {}
    for name, alias in _OPTIONAL.items():
        value = data.get(alias, data.get(name))
        if value is None or value == []:
            continue
        try:
            ConfirmationRequestPayload.model_validate({**base.model_dump(), name: value})
        except ValidationError:
            continue
        extras[name] = value
    if not extras:
        return base
    return ConfirmationRequestPayload.model_validate({**base.model_dump(), **extras})


def _default_message(suspension: PendingSuspend) -> str:
    payload = suspension.payload
    if isinstance(payload, dict) and payload.get("type") == "approval":
        return f'Allow "{suspension.tool_name}" to run?'
    return DEFAULT_MESSAGE


def is_filesystem_request(question: ConfirmationRequestPayload) -> bool:
    """Whether the question is a ``client_files`` call's: for the client's machine, not a person."""
    return question.tool_name == CLIENT_FILES


def question_event(
    run_id: str, agent_id: str, question: ConfirmationRequestPayload
) -> ConfirmationRequestEvent | FilesystemRequestEvent:
    """The event that asks ``question``: a ``filesystem-request`` for a ``client_files`` call
    (its operation and arguments), else a ``confirmation-request``."""
    if not is_filesystem_request(question):
        return ConfirmationRequestEvent(run_id=run_id, agent_id=agent_id, payload=question)
    args = dict(question.args)
    operation = str(args.pop("operation", ""))
    request = FilesystemRequestPayload(
        request_id=question.request_id, operation=operation, args=args
    )
    return FilesystemRequestEvent(run_id=run_id, agent_id=agent_id, payload=request)
