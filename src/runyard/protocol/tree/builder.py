"""Folding wire events into the agent activity tree (the seed's ``buildAgentTreeFromEvents``).

The builder keeps its own mutable state (text as lists of pieces, so a long stream of deltas
stays linear) and produces frozen ``AgentNode`` models only when asked. It never reads storage.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from runyard.messages import ContentBlock
from runyard.protocol.confirmation import Confirmation
from runyard.protocol.events import (
    AgentCompletedEvent,
    AgentSpawnedEvent,
    ConfirmationRequestEvent,
    ContentEvent,
    ErrorEvent,
    ReasoningDeltaEvent,
    RunFinishEvent,
    RunResumedEvent,
    RunStartEvent,
    StatusEvent,
    TasksUpdateEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolErrorEvent,
    ToolResultEvent,
    WireEvent,
)
from runyard.protocol.payloads import (
    AgentSpawnedPayload,
    AgentStatus,
    ErrorPayload,
    RunStatus,
    TaskItem,
)
from runyard.protocol.tree.node import (
    AgentNode,
    AgentToolCall,
    TimelineChild,
    TimelineContent,
    TimelineEntry,
    TimelineReasoning,
    TimelineText,
    TimelineToolCall,
)

__all__ = ["AgentTreeBuilder", "build_agent_tree", "build_agent_trees"]

_ORCHESTRATOR_ROLE = "orchestrator"


@dataclass
class _Call:
    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    result: Any = None
    error: str | None = None
    is_loading: bool = True
    confirmation: Confirmation | None = None


@dataclass
class _Stretch:
    """Consecutive text or reasoning deltas, joined only when the tree is produced."""

    kind: Literal["text", "reasoning"]
    pieces: list[str]


@dataclass
class _Agent:
    agent_id: str
    role: str
    spawned: AgentSpawnedPayload | None = None
    status: AgentStatus = "active"
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[str, _Call] = field(default_factory=dict)
    children: list[_Agent] = field(default_factory=list)
    timeline: list[_Stretch | TimelineToolCall | TimelineContent | TimelineChild] = field(
        default_factory=list
    )
    blocks: list[ContentBlock] = field(default_factory=list)
    tasks: list[TaskItem] | None = None
    status_message: str | None = None
    result: str | None = None
    error: str | None = None
    error_details: ErrorPayload | None = None
    cancellation_reason: str | None = None

    def stream(self, kind: Literal["text", "reasoning"], piece: str) -> None:
        (self.text if kind == "text" else self.reasoning).append(piece)
        last = self.timeline[-1] if self.timeline else None
        if isinstance(last, _Stretch) and last.kind == kind:
            last.pieces.append(piece)
        else:
            self.timeline.append(_Stretch(kind, [piece]))

    def end(self, status: RunStatus) -> None:
        """Close this agent and its descendants after their run stopped short."""
        if self.status == "active":
            self.status = status
        for call in self.calls.values():
            call.is_loading = False
        for child in self.children:
            child.end(status)

    def freeze(self) -> AgentNode:
        spawned = self.spawned
        return AgentNode(
            agent_id=self.agent_id,
            role=self.role,
            status=self.status,
            text_content="".join(self.text),
            reasoning="".join(self.reasoning),
            tool_calls=[AgentToolCall(**vars(call)) for call in self.calls.values()],
            children=[child.freeze() for child in self.children],
            timeline=[_freeze_entry(entry) for entry in self.timeline],
            blocks=list(self.blocks) or None,
            tools=spawned.tools if spawned else None,
            task_id=spawned.task_id if spawned else None,
            kind=spawned.kind if spawned else None,
            title=spawned.title if spawned else None,
            subtitle=spawned.subtitle if spawned else None,
            goal=spawned.goal if spawned else None,
            target_resource=spawned.target_resource if spawned else None,
            status_message=self.status_message,
            tasks=self.tasks,
            result=self.result,
            error=self.error,
            error_details=self.error_details,
            cancellation_reason=self.cancellation_reason,
        )


def _freeze_entry(
    entry: _Stretch | TimelineToolCall | TimelineContent | TimelineChild,
) -> TimelineEntry:
    if not isinstance(entry, _Stretch):
        return entry
    content = "".join(entry.pieces)
    return (
        TimelineText(content=content)
        if entry.kind == "text"
        else TimelineReasoning(content=content)
    )


class AgentTreeBuilder:
    """Applies events one at a time; ``tree()`` gives the tree as it stands.

    The first ``run-start`` names the root (the orchestrator). A later ``run-start`` — a follow-up
    or resumed run of the same conversation turn — reopens the root, and a different orchestrator
    id becomes another name for it, so the follow-up's events land in the same tree. Events of an
    agent the tree does not know are ignored, as are ``thread-title-updated`` and
    ``filesystem-request``, which say nothing about agents.

    ``root_agent_id`` seeds the root for a log whose ``run-start`` is missing (trimmed history).

    A ``run-resumed`` (the run was taken over by another server) drops the run's events applied
    with an id above its ``afterEventId``: the tree is folded again from the events kept, so the
    stopped server's partial text never shows twice. Events applied without an id are kept.
    """

    def __init__(self, root_agent_id: str | None = None) -> None:
        self._seed = root_agent_id
        self._applied: list[tuple[int | None, WireEvent]] = []
        self._reset()

    def _reset(self) -> None:
        self._root: _Agent | None = None
        self._agents: dict[str, _Agent] = {}
        if self._seed is not None:
            self._open_root(self._seed)

    def apply(self, event: WireEvent, event_id: int | None = None) -> None:
        """Fold one event (with its log id, when known) into the tree."""
        if isinstance(event, RunResumedEvent):
            self._rewind(event)
        self._applied.append((event_id, event))
        self._fold(event)

    def _rewind(self, resumed: RunResumedEvent) -> None:
        after = resumed.payload.after_event_id
        self._applied = [
            (i, e)
            for i, e in self._applied
            if i is None or i <= after or e.run_id != resumed.run_id
        ]
        self._reset()
        for _, event in self._applied:
            self._fold(event)

    def _fold(self, event: WireEvent) -> None:
        match event:
            case RunStartEvent() | RunResumedEvent():
                self._open_root(event.agent_id)
            case RunFinishEvent():
                self._finish(event)
            case TextDeltaEvent() | ReasoningDeltaEvent() | ContentEvent():
                self._output(event)
            case ToolCallEvent():
                self._tool_call(event)
            case ToolResultEvent() | ToolErrorEvent():
                self._tool_outcome(event)
            case ConfirmationRequestEvent():
                self._confirmation(event)
            case AgentSpawnedEvent():
                self._spawn(event)
            case AgentCompletedEvent():
                self._complete(event)
            case TasksUpdateEvent() | StatusEvent() | ErrorEvent():
                self._annotate(event)
            case _:
                pass

    def tree(self) -> AgentNode:
        """The tree so far; an empty active orchestrator before any ``run-start``."""
        if self._root is None:
            return AgentNode(agent_id="", role=_ORCHESTRATOR_ROLE, status="active")
        return self._root.freeze()

    def _open_root(self, agent_id: str) -> None:
        if self._root is None:
            self._root = _Agent(agent_id=agent_id, role=_ORCHESTRATOR_ROLE)
        self._agents.setdefault(agent_id, self._root)
        self._root.status = "active"

    def _finish(self, event: RunFinishEvent) -> None:
        root, payload = self._root, event.payload
        if root is None:
            return
        root.status = payload.status
        if payload.status == "cancelled":
            root.cancellation_reason = payload.reason
        elif payload.status == "error":
            root.error = payload.reason
        if payload.status != "completed":
            # Nothing outlives a stopped run: close what it left open.
            root.end(payload.status)

    def _output(self, event: TextDeltaEvent | ReasoningDeltaEvent | ContentEvent) -> None:
        agent = self._agents.get(event.agent_id)
        if agent is None:
            return
        if isinstance(event, ContentEvent):
            agent.blocks.extend(event.payload.blocks)
            agent.timeline.append(TimelineContent(blocks=list(event.payload.blocks)))
        else:
            agent.stream("text" if event.type == "text-delta" else "reasoning", event.payload.text)

    def _tool_call(self, event: ToolCallEvent) -> None:
        agent, payload = self._agents.get(event.agent_id), event.payload
        if agent is None:
            return
        if payload.tool_call_id not in agent.calls:
            agent.timeline.append(TimelineToolCall(tool_call_id=payload.tool_call_id))
        agent.calls[payload.tool_call_id] = _Call(
            payload.tool_call_id, payload.tool_name, dict(payload.args)
        )

    def _tool_outcome(self, event: ToolResultEvent | ToolErrorEvent) -> None:
        call = self._call(event.agent_id, event.payload.tool_call_id)
        if call is None:
            return
        if isinstance(event, ToolResultEvent):
            call.result = event.payload.result
        else:
            call.error = event.payload.error
        call.is_loading = False

    def _confirmation(self, event: ConfirmationRequestEvent) -> None:
        if call := self._call(event.agent_id, event.payload.tool_call_id):
            call.confirmation = event.payload.confirmation()

    def _spawn(self, event: AgentSpawnedEvent) -> None:
        parent, payload = self._agents.get(event.payload.parent_id), event.payload
        if parent is None or event.agent_id in self._agents:
            return
        child = _Agent(agent_id=event.agent_id, role=payload.role, spawned=payload)
        parent.children.append(child)
        parent.timeline.append(TimelineChild(agent_id=event.agent_id))
        self._agents[event.agent_id] = child

    def _complete(self, event: AgentCompletedEvent) -> None:
        agent, payload = self._agents.get(event.agent_id), event.payload
        if agent is None:
            return
        agent.status = payload.outcome
        agent.result, agent.error = payload.result, payload.error

    def _annotate(self, event: TasksUpdateEvent | StatusEvent | ErrorEvent) -> None:
        agent = self._agents.get(event.agent_id)
        if agent is None:
            return
        if isinstance(event, TasksUpdateEvent):
            agent.tasks = list(event.payload.tasks)
        elif isinstance(event, StatusEvent):
            agent.status_message = event.payload.message or None
        else:
            agent.error_details = event.payload

    def _call(self, agent_id: str, tool_call_id: str) -> _Call | None:
        agent = self._agents.get(agent_id)
        return agent.calls.get(tool_call_id) if agent else None


def build_agent_tree(events: Iterable[WireEvent], *, root_agent_id: str | None = None) -> AgentNode:
    """The activity tree of a run (or of a turn's runs) from its events, in log order."""
    builder = AgentTreeBuilder(root_agent_id)
    for event in events:
        builder.apply(event)
    return builder.tree()


def build_agent_trees(events: Iterable[WireEvent]) -> dict[str, AgentNode]:
    """One tree per ``runId``, in the order runs first appear — for a thread's whole log."""
    builders: dict[str, AgentTreeBuilder] = {}
    for event in events:
        builders.setdefault(event.run_id, AgentTreeBuilder()).apply(event)
    return {run_id: builder.tree() for run_id, builder in builders.items()}
