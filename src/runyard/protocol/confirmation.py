"""The ``confirmation-request`` payload: a human-in-the-loop gate on one tool call.

``Confirmation`` is what the user is asked; ``ConfirmationRequestPayload`` adds the tool call it
gates. The agent tree keeps the ``Confirmation`` on the matching tool call.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from runyard.protocol.payloads import TaskItem
from runyard.protocol.wire_model import WireModel, omitted_if_none

__all__ = [
    "Confirmation",
    "ConfirmationRequestPayload",
    "CredentialFlow",
    "CredentialRequest",
    "DomainAccess",
    "ExistingCredential",
    "InputType",
    "Question",
    "ResourceDecision",
    "Severity",
    "TargetApproval",
]

Severity = Literal["info", "warning", "destructive"]
"""How much is at stake: decides how loudly the client asks."""

InputType = Literal["approval", "text", "questions", "plan-review", "resource-decision", "continue"]
"""Which input the client renders; ``approval`` (yes/no) when absent."""


class Question(WireModel):
    """One question of a structured questionnaire (``input_type="questions"``)."""

    id: str
    question: str
    type: Literal["single", "multi", "text"]
    options: list[str] | None = omitted_if_none()


class ExistingCredential(WireModel):
    """A credential the user already has and may pick."""

    id: str
    name: str


class CredentialRequest(WireModel):
    """A credential the tool needs before it can run."""

    credential_type: str
    reason: str
    existing_credentials: list[ExistingCredential] = Field(default_factory=list)
    suggested_name: str | None = omitted_if_none()
    setup_hint: str | None = omitted_if_none()
    prefer_new: bool | None = omitted_if_none()


class CredentialFlow(WireModel):
    """Which step of credential setup the picker is in."""

    stage: Literal["generic", "finalize"]


class DomainAccess(WireModel):
    """A request to let a tool reach ``host`` (asked for ``url``)."""

    url: str
    host: str


class TargetApproval(WireModel):
    """The tool call the user is really approving, when a wrapper asks on its behalf."""

    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict)
    display_name: str | None = omitted_if_none()


class ResourceDecision(WireModel):
    """A choice about a tool group's access to a resource (``input_type="resource-decision"``)."""

    tool_group: str
    resource: str
    description: str
    options: list[Literal["denyOnce", "allowOnce", "allowForSession"]]


class Confirmation(WireModel):
    """What the user is asked to confirm; every field beyond the first three is optional."""

    request_id: str
    severity: Severity
    message: str
    input_type: InputType | None = omitted_if_none()
    questions: list[Question] | None = omitted_if_none()
    tasks: list[TaskItem] | None = omitted_if_none()
    intro_message: str | None = omitted_if_none()
    credential_requests: list[CredentialRequest] | None = omitted_if_none()
    credential_flow: CredentialFlow | None = omitted_if_none()
    setup_requests: list[dict[str, Any]] | None = omitted_if_none()
    workflow_id: str | None = omitted_if_none()
    project_id: str | None = omitted_if_none()
    domain_access: DomainAccess | None = omitted_if_none()
    target_approval: TargetApproval | None = omitted_if_none()
    require_user_selection: bool | None = omitted_if_none()
    resource_decision: ResourceDecision | None = omitted_if_none()


class ConfirmationRequestPayload(Confirmation):
    """``confirmation-request``: the tool call ``tool_call_id`` waits for the user's answer.

    The answer goes to ``POST /v1/confirm/{requestId}``; approval is followed by ``tool-result``,
    denial by ``tool-error``.
    """

    tool_call_id: str
    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict)

    def confirmation(self) -> Confirmation:
        """The question alone, without the tool call it gates."""
        return Confirmation.model_validate(
            self.model_dump(exclude={"tool_call_id", "tool_name", "args"})
        )
