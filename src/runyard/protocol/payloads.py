"""The payload of each wire event, one model per event type, with the seed's camelCase names.

Optional fields are left out of the JSON when unset (see ``wire_model.omitted_if_none``).
``confirmation.py`` holds the richer ``confirmation-request`` payload.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from runyard.messages import ContentBlock
from runyard.protocol.wire_model import WireModel, omitted_if_none

__all__ = [
    "AgentCompletedPayload",
    "AgentSpawnedPayload",
    "AgentStatus",
    "ContentPayload",
    "ErrorPayload",
    "FilesystemRequestPayload",
    "ReasoningDeltaPayload",
    "RunFinishPayload",
    "RunResumedPayload",
    "RunStartPayload",
    "RunStatus",
    "RunUsage",
    "StatusPayload",
    "TargetResource",
    "TaskItem",
    "TaskStatus",
    "TasksUpdatePayload",
    "TextDeltaPayload",
    "ThreadTitleUpdatedPayload",
    "ToolCallPayload",
    "ToolErrorPayload",
    "ToolResultPayload",
]

RunStatus = Literal["completed", "cancelled", "error"]
"""How a run (or a sub-agent) ended."""

AgentStatus = Literal["active", "completed", "cancelled", "error"]
"""An agent node's state in the activity tree: ``active`` until it ends."""

TaskStatus = Literal["pending", "in_progress", "completed", "failed"]
"""The state of one task of a checklist."""


class RunStartPayload(WireModel):
    """``run-start``: the orchestrator began answering the user message ``message_id``."""

    message_id: str
    trace_id: str | None = omitted_if_none()
    message_group_id: str | None = omitted_if_none()
    agent_id: str | None = omitted_if_none()
    """The catalog agent routing chose (only when the server serves a catalog)."""
    version: str | None = omitted_if_none()
    """That agent's version: the content hash of its spec."""
    rule_id: str | None = omitted_if_none()
    """The routing rule that chose it; absent for a named agent or the default."""


class RunUsage(WireModel):
    """What a whole run spent: every model call of every segment, its sub-agents' included.

    ``cost`` is in USD and left out when no price is known for any of the models.
    """

    input_tokens: int
    output_tokens: int
    total_tokens: int
    cost: float | None = omitted_if_none()
    models: list[str] | None = omitted_if_none()
    """The models (``provider:model``) that answered the run's calls (its sub-agents' too), in
    the order each first answered; more than one when a fallback model served a call. Left out
    when unknown."""


class RunResumedPayload(WireModel):
    """``run-resumed``: another server took the run over after its own stopped, and carries it
    on from its last durable step. Every event of the run with an id above ``after_event_id``
    (and below this one) was partial output of the stopped server: a client drops it, for the
    run says it again from here."""

    after_event_id: int


class RunFinishPayload(WireModel):
    """``run-finish``: the run ended; ``reason`` says why when it did not complete.

    ``usage`` is left out when the run ended without its driver knowing it (a cancel while it
    waited for a confirmation, a restart). ``output`` is the structured answer of a completed run
    whose agent asks for one (``output_schema``).
    """

    status: RunStatus
    reason: str | None = omitted_if_none()
    usage: RunUsage | None = omitted_if_none()
    output: dict[str, Any] | None = omitted_if_none()


class TextDeltaPayload(WireModel):
    """``text-delta``: text to append to the agent's answer."""

    text: str


class ReasoningDeltaPayload(WireModel):
    """``reasoning-delta``: reasoning to append to the agent's visible thinking."""

    text: str


class ContentPayload(WireModel):
    """``content``: whole content blocks an agent or a tool produced (images, audio, files,
    structured JSON, sources), in the order they came.

    Text and reasoning keep streaming as deltas; a block here is never also a delta. The blocks
    are runyard's content parts with LangChain's standard-block field names (snake_case, as
    LangChain writes them): ``{"type": "image", "mime_type", "base64" | "url" | "file_id"}``.
    ``message_id`` names the stored message the blocks belong to (for ``/messages``);
    ``tool_call_id`` the tool call that produced them, when a tool did.
    """

    blocks: list[ContentBlock]
    message_id: str | None = omitted_if_none()
    tool_call_id: str | None = omitted_if_none()


class ToolCallPayload(WireModel):
    """``tool-call``: the agent is about to run a tool with ``args``."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolResultPayload(WireModel):
    """``tool-result``: the call succeeded; ``result`` is any JSON value, ``null`` included."""

    tool_call_id: str
    result: Any


class ToolErrorPayload(WireModel):
    """``tool-error``: the call failed (or was denied) with the message ``error``."""

    tool_call_id: str
    error: str


class TargetResource(WireModel):
    """What a sub-agent works on, for display (``type`` such as ``workflow`` or ``other``)."""

    type: str
    id: str | None = omitted_if_none()
    name: str | None = omitted_if_none()
    project_id: str | None = omitted_if_none()


class AgentSpawnedPayload(WireModel):
    """``agent-spawned``: a sub-agent (the envelope's ``agentId``) started under ``parent_id``."""

    parent_id: str
    role: str
    tools: list[str] = Field(default_factory=list)
    task_id: str | None = omitted_if_none()
    kind: str | None = omitted_if_none()
    title: str | None = omitted_if_none()
    subtitle: str | None = omitted_if_none()
    goal: str | None = omitted_if_none()
    target_resource: TargetResource | None = omitted_if_none()


class AgentCompletedPayload(WireModel):
    """``agent-completed``: a sub-agent finished with ``result``, or failed with ``error``.

    ``status`` is explicit when it ended otherwise than its ``error`` implies (a cancellation).
    """

    role: str
    result: str
    error: str | None = omitted_if_none()
    status: RunStatus | None = omitted_if_none()

    @property
    def outcome(self) -> RunStatus:
        """How the sub-agent ended: ``status`` when given, else what ``error`` implies."""
        if self.status is not None:
            return self.status
        return "error" if self.error is not None else "completed"


class TaskItem(WireModel):
    """One entry of a task checklist."""

    id: str
    description: str
    status: TaskStatus
    detail: str | None = omitted_if_none()


class TasksUpdatePayload(WireModel):
    """``tasks-update``: the whole checklist as it now stands (it replaces the previous one)."""

    tasks: list[TaskItem]


class StatusPayload(WireModel):
    """``status``: a transient status line; the empty string clears it."""

    message: str


class ErrorPayload(WireModel):
    """``error``: a system-level error, with the provider's status code when there is one."""

    content: str
    status_code: int | None = omitted_if_none()
    code: str | None = omitted_if_none()
    provider: str | None = omitted_if_none()
    technical_details: str | None = omitted_if_none()


class ThreadTitleUpdatedPayload(WireModel):
    """``thread-title-updated``: the thread now has this title."""

    title: str


class FilesystemRequestPayload(WireModel):
    """``filesystem-request``: an internal request for a client-side filesystem operation."""

    request_id: str
    operation: str
    args: dict[str, Any] = Field(default_factory=dict)
