"""The chunks a run emits, in order. ``stream`` yields them; ``generate`` folds them into a result."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, Protocol

from runyard.messages import AgentMessage, CustomMessage
from runyard.models import Usage
from runyard.runtime.results import PendingSuspend, SubAgentUsage, total_usage
from runyard.runtime.state import RunStatus
from runyard.tools import ToolEvent

__all__ = [
    "ChunkSink",
    "CustomDataChunk",
    "ErrorChunk",
    "FinishChunk",
    "MessageChunk",
    "ModelFallbackChunk",
    "ReasoningDeltaChunk",
    "StreamChunk",
    "SubAgentChunk",
    "SubAgentEndChunk",
    "TextDeltaChunk",
    "ToolCallDeltaChunk",
    "ToolCallSuspendedChunk",
    "ToolExecutionStartChunk",
    "ToolEventChunk",
    "ToolResultChunk",
]


@dataclass(frozen=True, slots=True)
class TextDeltaChunk:
    type: ClassVar[Literal["text-delta"]] = "text-delta"
    delta: str


@dataclass(frozen=True, slots=True)
class ReasoningDeltaChunk:
    type: ClassVar[Literal["reasoning-delta"]] = "reasoning-delta"
    delta: str


@dataclass(frozen=True, slots=True)
class ToolCallDeltaChunk:
    """A piece of a tool call the model is still writing."""

    type: ClassVar[Literal["tool-call-delta"]] = "tool-call-delta"
    tool_call_id: str | None
    tool_name: str | None
    args_delta: str | None


@dataclass(frozen=True, slots=True)
class MessageChunk:
    """A whole message: the model's turn (text and tool calls), or a tool's custom UI row."""

    type: ClassVar[Literal["message"]] = "message"
    message: AgentMessage | CustomMessage


@dataclass(frozen=True, slots=True)
class ToolExecutionStartChunk:
    type: ClassVar[Literal["tool-execution-start"]] = "tool-execution-start"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolEventChunk:
    """A typed event a tool emitted while running (``ToolContext.emit`` or ``progress``).

    It comes in stream order: after the call's ``tool-execution-start``, before its result.
    """

    type: ClassVar[Literal["tool-event"]] = "tool-event"
    tool_call_id: str
    tool_name: str
    event: ToolEvent


@dataclass(frozen=True, slots=True)
class ToolResultChunk:
    """A settled call; ``output`` is what the model sees (after ``to_model_output``)."""

    type: ClassVar[Literal["tool-result"]] = "tool-result"
    tool_call_id: str
    tool_name: str
    output: Any
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class ToolCallSuspendedChunk(PendingSuspend):
    """A call that waits for an answer, with the seed's fields on the chunk itself.

    ``run_id``, ``tool_call_id``, ``tool_name``, ``args``, ``payload`` (the seed's
    ``suspendPayload``: what the tool asks), ``resume_schema`` and ``agent_id`` (the sub-agent
    that asks, when one does); the same fields, and names, as the ``PendingSuspend`` entries of
    ``GenerateResult.pending_suspend``.
    """

    type: ClassVar[Literal["tool-call-suspended"]] = "tool-call-suspended"

    def pending_suspend(self) -> PendingSuspend:
        """This suspension as ``GenerateResult.pending_suspend`` lists it."""
        return PendingSuspend(**{f.name: getattr(self, f.name) for f in fields(PendingSuspend)})


@dataclass(frozen=True, slots=True)
class ModelFallbackChunk:
    """A model failed the call before answering and the next of the agent's models serves it:
    ``failed`` and ``model`` are ``provider:model`` labels, ``reason`` one of
    ``runyard.models.FallbackReason``, ``error`` the failure's text."""

    type: ClassVar[Literal["model-fallback"]] = "model-fallback"
    failed: str
    model: str
    reason: str
    error: str


@dataclass(frozen=True, slots=True)
class CustomDataChunk:
    """Data the agent's own code wrote on the run's stream outside any tool call (a LangGraph
    node's ``get_stream_writer()``): a text is a status line, anything else JSON data."""

    type: ClassVar[Literal["custom-data"]] = "custom-data"
    data: Any


@dataclass(frozen=True, slots=True)
class SubAgentChunk:
    """A chunk of a sub-agent working inside the run's own loop (a LangGraph subgraph), shown
    as the child ``agent_id`` in the activity tree; ``role`` says what it is. Its first chunk
    starts it, a ``SubAgentEndChunk`` ends it; a sub-agent's own sub-agents nest in ``chunk``.

    A sub-agent runyard runs as a tool call (``as_tool``, ``delegate``) has no need of it: the
    service maps that agent's own stream. A subgraph has no stream of its own: its chunks come
    in the run's stream, and only this wrapper says whose they are.
    """

    type: ClassVar[Literal["sub-agent"]] = "sub-agent"
    agent_id: str
    role: str
    chunk: StreamChunk


@dataclass(frozen=True, slots=True)
class SubAgentEndChunk:
    """The sub-agent ``agent_id`` finished; ``result`` is the text of its last answer."""

    type: ClassVar[Literal["sub-agent-end"]] = "sub-agent-end"
    agent_id: str
    role: str
    result: str


@dataclass(frozen=True, slots=True)
class FinishChunk:
    """Always the last chunk of a run segment, carrying how it ended.

    ``status`` is the segment's verdict, decided by the runtime alone: ``SUCCESS``,
    ``SUSPENDED`` (calls wait for answers), ``CANCELLED`` (aborted) or ``FAILED`` (``error`` says
    why) — the same as ``agent.get_state().status`` afterwards. A caller reads it here instead of
    inferring it from the chunks before. ``usage`` and ``sub_agent_usage`` count the whole run so
    far, earlier segments included: a resume starts from the usage its checkpoint kept.
    """

    type: ClassVar[Literal["finish"]] = "finish"
    finish_reason: str
    usage: Usage
    model: str
    status: RunStatus
    error: BaseException | None = None
    structured_output: Any = None
    sub_agent_usage: list[SubAgentUsage] = field(default_factory=list)
    total_cost: float | None = None

    @property
    def total_usage(self) -> Usage:
        """The run's own usage plus its sub-agents' (its ``cost`` is ``total_cost``)."""
        return total_usage(self.usage, self.sub_agent_usage)


@dataclass(frozen=True, slots=True)
class ErrorChunk:
    """The run failed or was aborted; a ``finish`` with reason ``error`` follows."""

    type: ClassVar[Literal["error"]] = "error"
    error: BaseException


StreamChunk = (
    TextDeltaChunk
    | ReasoningDeltaChunk
    | ToolCallDeltaChunk
    | MessageChunk
    | ModelFallbackChunk
    | ToolExecutionStartChunk
    | ToolEventChunk
    | ToolResultChunk
    | ToolCallSuspendedChunk
    | CustomDataChunk
    | SubAgentChunk
    | SubAgentEndChunk
    | FinishChunk
    | ErrorChunk
)


class ChunkSink(Protocol):
    """Where a run writes its chunks: ``generate``'s collector, or ``stream``'s bounded buffer."""

    async def send(self, chunk: StreamChunk) -> None:
        """Write ``chunk``; waits while the reader is behind (the stream's back-pressure)."""

    def send_nowait(self, chunk: StreamChunk) -> None:
        """Write ``chunk`` at once, past the bound if need be: for a tool's event sent from the
        event loop's own thread, which cannot wait without stalling the run."""
