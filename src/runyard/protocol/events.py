"""The seventeen wire events of the streaming protocol, as one discriminated union on ``type``.

Every event is ``{"type", "runId", "agentId", "payload"}``: ``runId`` ties it to one user
message → answer cycle, ``agentId`` to the agent (orchestrator or sub-agent) it belongs to.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import Field

from runyard.protocol.confirmation import ConfirmationRequestPayload
from runyard.protocol.payloads import (
    AgentCompletedPayload,
    AgentSpawnedPayload,
    ContentPayload,
    ErrorPayload,
    FilesystemRequestPayload,
    ReasoningDeltaPayload,
    RunFinishPayload,
    RunResumedPayload,
    RunStartPayload,
    StatusPayload,
    TasksUpdatePayload,
    TextDeltaPayload,
    ThreadTitleUpdatedPayload,
    ToolCallPayload,
    ToolErrorPayload,
    ToolResultPayload,
)
from runyard.protocol.wire_model import WireModel

__all__ = [
    "ORCHESTRATOR_ID",
    "AgentCompletedEvent",
    "AgentSpawnedEvent",
    "ConfirmationRequestEvent",
    "ContentEvent",
    "ErrorEvent",
    "FilesystemRequestEvent",
    "ReasoningDeltaEvent",
    "RunFinishEvent",
    "RunResumedEvent",
    "RunStartEvent",
    "StatusEvent",
    "TasksUpdateEvent",
    "TextDeltaEvent",
    "ThreadTitleUpdatedEvent",
    "ToolCallEvent",
    "ToolErrorEvent",
    "ToolResultEvent",
    "WireEvent",
]

ORCHESTRATOR_ID = "agent-001"
"""The orchestrator's ``agentId`` in every run: the root of the activity tree (``run-start``'s
``agentId``)."""


class _Envelope(WireModel):
    # Declared here so ``type`` comes first on the wire; each event narrows it to its literal.
    type: str
    run_id: str
    agent_id: str


class RunStartEvent(_Envelope):
    """Always the first event of a run; its ``agentId`` is the orchestrator, the tree's root."""

    type: Literal["run-start"] = "run-start"
    payload: RunStartPayload


class RunFinishEvent(_Envelope):
    """Always the last event of a run: completed, cancelled or failed."""

    type: Literal["run-finish"] = "run-finish"
    payload: RunFinishPayload


class RunResumedEvent(_Envelope):
    """The run carries on on another server after its own stopped; drop its events after
    ``afterEventId`` (they are said again)."""

    type: Literal["run-resumed"] = "run-resumed"
    payload: RunResumedPayload


class TextDeltaEvent(_Envelope):
    """A piece of an agent's answer."""

    type: Literal["text-delta"] = "text-delta"
    payload: TextDeltaPayload


class ReasoningDeltaEvent(_Envelope):
    """A piece of an agent's reasoning (only when the model produces any)."""

    type: Literal["reasoning-delta"] = "reasoning-delta"
    payload: ReasoningDeltaPayload


class ContentEvent(_Envelope):
    """Whole content blocks (images, files, structured JSON, sources) an agent or tool produced."""

    type: Literal["content"] = "content"
    payload: ContentPayload


class ToolCallEvent(_Envelope):
    """An agent calls a tool; sent before the tool runs."""

    type: Literal["tool-call"] = "tool-call"
    payload: ToolCallPayload


class ToolResultEvent(_Envelope):
    """A tool call succeeded."""

    type: Literal["tool-result"] = "tool-result"
    payload: ToolResultPayload


class ToolErrorEvent(_Envelope):
    """A tool call failed or was denied."""

    type: Literal["tool-error"] = "tool-error"
    payload: ToolErrorPayload


class AgentSpawnedEvent(_Envelope):
    """A sub-agent started; ``agentId`` is the new agent, ``payload.parentId`` its parent."""

    type: Literal["agent-spawned"] = "agent-spawned"
    payload: AgentSpawnedPayload


class AgentCompletedEvent(_Envelope):
    """A sub-agent finished."""

    type: Literal["agent-completed"] = "agent-completed"
    payload: AgentCompletedPayload


class ConfirmationRequestEvent(_Envelope):
    """A tool call waits for the user's approval or input."""

    type: Literal["confirmation-request"] = "confirmation-request"
    payload: ConfirmationRequestPayload


class TasksUpdateEvent(_Envelope):
    """The task checklist was created or changed."""

    type: Literal["tasks-update"] = "tasks-update"
    payload: TasksUpdatePayload


class StatusEvent(_Envelope):
    """A transient status line ("Searching…"); an empty message clears it."""

    type: Literal["status"] = "status"
    payload: StatusPayload


class ErrorEvent(_Envelope):
    """A system-level error (the run's own end is still reported by ``run-finish``)."""

    type: Literal["error"] = "error"
    payload: ErrorPayload


class ThreadTitleUpdatedEvent(_Envelope):
    """The thread got a (new) title."""

    type: Literal["thread-title-updated"] = "thread-title-updated"
    payload: ThreadTitleUpdatedPayload


class FilesystemRequestEvent(_Envelope):
    """An internal request for a client-side filesystem operation."""

    type: Literal["filesystem-request"] = "filesystem-request"
    payload: FilesystemRequestPayload


WireEvent: TypeAlias = Annotated[
    RunStartEvent
    | RunFinishEvent
    | RunResumedEvent
    | TextDeltaEvent
    | ReasoningDeltaEvent
    | ContentEvent
    | ToolCallEvent
    | ToolResultEvent
    | ToolErrorEvent
    | AgentSpawnedEvent
    | AgentCompletedEvent
    | ConfirmationRequestEvent
    | TasksUpdateEvent
    | StatusEvent
    | ErrorEvent
    | ThreadTitleUpdatedEvent
    | FilesystemRequestEvent,
    Field(discriminator="type"),
]
"""Any event of the protocol; validate with ``parse_event``, write with ``event_to_json``."""
