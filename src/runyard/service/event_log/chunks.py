"""Agent stream chunks → wire events (n8n's ``map-chunk``), for the orchestrator and sub-agents.

Suspensions are not mapped here: a ``confirmation-request`` needs a stored confirmation first,
which the run driver creates. Tools report events of their own through their typed channel
(``ToolContext.emit``): the service's tools (``delegate``, ``plan``) send ``WireToolEvent``s,
which pass through unchanged and in stream order; a ``ToolProgress`` becomes a ``status`` line.
The agent's own data (``CustomDataChunk``: a LangGraph node's stream writer) is a ``status``
line when it is text, else a ``content`` event with a JSON block. A sub-agent inside the run's
own loop (``SubAgentChunk``: a LangGraph subgraph) is a child agent: ``agent-spawned`` under this
mapper's agent at its first chunk, its chunks mapped under its id, ``agent-completed`` at its end.
A tool event with no wire form is a programming error: ``UnmappedToolEventWarning`` says so
(the test suite turns warnings into errors; a server shows it once per tool and event type) and
the event is not shown.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from runyard.errors import RunAbortedError
from runyard.messages import AgentMessage, JsonPart, tool_blocks, whole_blocks
from runyard.models import ModelProviderError
from runyard.protocol import (
    AgentCompletedEvent,
    AgentCompletedPayload,
    AgentSpawnedEvent,
    AgentSpawnedPayload,
    ContentEvent,
    ContentPayload,
    ErrorEvent,
    ErrorPayload,
    ReasoningDeltaEvent,
    ReasoningDeltaPayload,
    StatusEvent,
    StatusPayload,
    TextDeltaEvent,
    TextDeltaPayload,
    ToolCallEvent,
    ToolCallPayload,
    ToolErrorEvent,
    ToolErrorPayload,
    ToolResultEvent,
    ToolResultPayload,
    WireEvent,
)
from runyard.runtime import (
    CustomDataChunk,
    ErrorChunk,
    MessageChunk,
    ModelFallbackChunk,
    ReasoningDeltaChunk,
    StreamChunk,
    SubAgentChunk,
    SubAgentEndChunk,
    TextDeltaChunk,
    ToolEventChunk,
    ToolResultChunk,
)
from runyard.tools import ToolEvent, ToolProgress

__all__ = ["CANCELLED_TOOL_ERROR", "ChunkMapper", "UnmappedToolEventWarning", "WireToolEvent"]

CANCELLED_TOOL_ERROR = "Cancelled by user"

SUBGRAPH_KIND = "subgraph"
"""The ``kind`` of a sub-agent that is a subgraph of the agent's own graph."""


@dataclass(frozen=True, slots=True)
class WireToolEvent(ToolEvent):
    """A wire event a service tool sends to the run's log, through its call's event channel."""

    event: WireEvent


class UnmappedToolEventWarning(RuntimeWarning):
    """A tool emitted a ``ToolEvent`` the service has no wire event for; it was not shown."""


class ChunkMapper:
    """Maps one agent's chunks to events under ``agent_id``; keeps the calls still open.

    How the stream ended is not its business: the ``finish`` chunk carries the verdict, and the
    run's driver reads it there. An aborted run's ``error`` chunk has no event (the run's end
    says it was cancelled).
    """

    def __init__(self, run_id: str, agent_id: str) -> None:
        self.run_id = run_id
        self.agent_id = agent_id
        self.open_calls: dict[str, str] = {}
        """Tool calls announced with ``tool-call`` that have no result yet (id → tool name)."""
        self._children: dict[str, tuple[str, ChunkMapper]] = {}
        """The sub-agents running inside the run's loop: id → (role, their mapper)."""

    def map(self, chunk: StreamChunk) -> list[WireEvent]:
        """The wire events for one chunk (often none)."""
        run, agent = self.run_id, self.agent_id
        if isinstance(chunk, TextDeltaChunk):
            return [
                TextDeltaEvent(
                    run_id=run, agent_id=agent, payload=TextDeltaPayload(text=chunk.delta)
                )
            ]
        if isinstance(chunk, ReasoningDeltaChunk):
            return [
                ReasoningDeltaEvent(
                    run_id=run, agent_id=agent, payload=ReasoningDeltaPayload(text=chunk.delta)
                )
            ]
        if isinstance(chunk, MessageChunk):
            return self._message(chunk)
        if isinstance(chunk, ToolResultChunk):
            return [*self._tool_content(chunk), self._tool_outcome(chunk)]
        if isinstance(chunk, ToolEventChunk):
            return self._tool_event(chunk)
        if isinstance(chunk, ModelFallbackChunk):
            return [self._fallback(chunk)]
        if isinstance(chunk, CustomDataChunk):
            return [self._custom(chunk)]
        if isinstance(chunk, SubAgentChunk | SubAgentEndChunk):
            return self._sub_agent(chunk)
        if isinstance(chunk, ErrorChunk) and not isinstance(chunk.error, RunAbortedError):
            return [self._error(chunk.error)]
        return []

    def cancel_open_calls(self, error: str = CANCELLED_TOOL_ERROR) -> list[WireEvent]:
        """``tool-error`` for every call still open, so no call is left loading after a cancel
        (or a failure: ``error`` says why)."""
        events: list[WireEvent] = [
            ToolErrorEvent(
                run_id=self.run_id,
                agent_id=self.agent_id,
                payload=ToolErrorPayload(tool_call_id=call_id, error=error),
            )
            for call_id in self.open_calls
        ]
        self.open_calls.clear()
        for agent_id, (role, child) in self._children.items():
            events.extend(child.cancel_open_calls(error))
            ended = (
                AgentCompletedPayload(role=role, result="", status="cancelled")
                if error == CANCELLED_TOOL_ERROR
                else AgentCompletedPayload(role=role, result="", error=error)
            )
            events.append(AgentCompletedEvent(run_id=self.run_id, agent_id=agent_id, payload=ended))
        self._children.clear()
        return events

    def _child(self, agent_id: str, role: str) -> tuple[list[WireEvent], ChunkMapper]:
        """The mapper of sub-agent ``agent_id``, with its ``agent-spawned`` when it is new."""
        known = self._children.get(agent_id)
        if known is not None:
            return [], known[1]
        child = ChunkMapper(self.run_id, agent_id)
        self._children[agent_id] = (role, child)
        payload = AgentSpawnedPayload(parent_id=self.agent_id, role=role, kind=SUBGRAPH_KIND)
        return [AgentSpawnedEvent(run_id=self.run_id, agent_id=agent_id, payload=payload)], child

    def _sub_agent(self, chunk: SubAgentChunk | SubAgentEndChunk) -> list[WireEvent]:
        """A sub-agent's chunk under its own id, or its end."""
        spawned, child = self._child(chunk.agent_id, chunk.role)
        if isinstance(chunk, SubAgentChunk):
            return [*spawned, *child.map(chunk.chunk)]
        del self._children[chunk.agent_id]
        payload = AgentCompletedPayload(role=chunk.role, result=chunk.result)
        ended = AgentCompletedEvent(run_id=self.run_id, agent_id=chunk.agent_id, payload=payload)
        return [*spawned, *child.cancel_open_calls("The subgraph ended before its call"), ended]

    def _message(self, chunk: MessageChunk) -> list[WireEvent]:
        """A model's turn: its content blocks (text and reasoning streamed as deltas already),
        then its tool calls."""
        message = chunk.message
        if not isinstance(message, AgentMessage) or message.role != "assistant":
            return []
        blocks = whole_blocks(message.parts)
        events: list[WireEvent] = []
        if blocks:
            content = ContentPayload(blocks=blocks, message_id=message.id)
            events.append(ContentEvent(run_id=self.run_id, agent_id=self.agent_id, payload=content))
        for part in message.tool_calls:
            self.open_calls[part.tool_call_id] = part.tool_name
            payload = ToolCallPayload(
                tool_call_id=part.tool_call_id, tool_name=part.tool_name, args=part.args
            )
            events.append(
                ToolCallEvent(run_id=self.run_id, agent_id=self.agent_id, payload=payload)
            )
        return events

    def _tool_content(self, chunk: ToolResultChunk) -> list[WireEvent]:
        """The images, files and data a tool answered with, as a ``content`` event of its call."""
        blocks = [] if chunk.is_error else tool_blocks(chunk.output)
        if not blocks:
            return []
        content = ContentPayload(blocks=list(blocks), tool_call_id=chunk.tool_call_id)
        return [ContentEvent(run_id=self.run_id, agent_id=self.agent_id, payload=content)]

    def _tool_outcome(self, chunk: ToolResultChunk) -> WireEvent:
        self.open_calls.pop(chunk.tool_call_id, None)
        if chunk.is_error:
            error = chunk.output if isinstance(chunk.output, str) else "Tool execution failed"
            return ToolErrorEvent(
                run_id=self.run_id,
                agent_id=self.agent_id,
                payload=ToolErrorPayload(tool_call_id=chunk.tool_call_id, error=error),
            )
        return ToolResultEvent(
            run_id=self.run_id,
            agent_id=self.agent_id,
            payload=ToolResultPayload(tool_call_id=chunk.tool_call_id, result=chunk.output),
        )

    def _tool_event(self, chunk: ToolEventChunk) -> list[WireEvent]:
        """A tool's own event: a wire event passes through; progress becomes a status line."""
        event = chunk.event
        if isinstance(event, WireToolEvent):
            return [event.event]
        if isinstance(event, ToolProgress):
            payload = StatusPayload(message=event.message)
            return [StatusEvent(run_id=self.run_id, agent_id=self.agent_id, payload=payload)]
        warnings.warn(
            f"tool {chunk.tool_name} emitted a {type(event).__qualname__}, which has no wire "
            "event: clients will not see it",
            UnmappedToolEventWarning,
            stacklevel=2,
        )
        return []

    def _custom(self, chunk: CustomDataChunk) -> WireEvent:
        """The agent's own data: a text is a status line, other data a JSON block."""
        run, agent, data = self.run_id, self.agent_id, chunk.data
        if isinstance(data, str):
            return StatusEvent(run_id=run, agent_id=agent, payload=StatusPayload(message=data))
        content = ContentPayload(blocks=[JsonPart(data=data)])
        return ContentEvent(run_id=run, agent_id=agent, payload=content)

    def _fallback(self, chunk: ModelFallbackChunk) -> WireEvent:
        """A status line naming the model that serves the call now; the provider's error text
        stays in the logs and the span (it may quote the request)."""
        message = f"{chunk.failed} failed ({chunk.reason}); {chunk.model} is answering"
        return StatusEvent(
            run_id=self.run_id, agent_id=self.agent_id, payload=StatusPayload(message=message)
        )

    def _error(self, error: BaseException) -> WireEvent:
        return ErrorEvent(run_id=self.run_id, agent_id=self.agent_id, payload=_error_payload(error))


def _error_payload(error: BaseException) -> ErrorPayload:
    """The ``error`` payload for a failure; a provider's adds its status code, name and code."""
    content = str(error) or type(error).__name__
    if not isinstance(error, ModelProviderError):
        return ErrorPayload(content=content)
    return ErrorPayload(
        content=content,
        status_code=error.status_code,
        provider=error.provider,
        code=error.code,
    )
