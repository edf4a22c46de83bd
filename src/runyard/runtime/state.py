"""Run state: the serialisable snapshot of a run, and where suspended runs are kept.

``CheckpointStore`` is the seam: the in-memory store lives here; ``runyard.storage`` provides a
durable one so a run suspended by one process can be resumed by another.
"""

from __future__ import annotations

import copy
from enum import StrEnum
from typing import Any, NamedTuple, Protocol

from pydantic import BaseModel, Field

from runyard.errors import ResumeError
from runyard.models import Usage
from runyard.runtime.message_list import SerializedMessageList
from runyard.runtime.results import SubAgentUsage

__all__ = [
    "AgentState",
    "CheckpointStore",
    "GraphState",
    "InMemoryCheckpointStore",
    "NestedSuspension",
    "PendingToolCall",
    "Question",
    "RunStateManager",
    "RunStatus",
]


class RunStatus(StrEnum):
    IDLE = "idle"
    RUNNING = "running"
    SUCCESS = "success"
    FAILED = "failed"
    SUSPENDED = "suspended"
    CANCELLED = "cancelled"


class PendingToolCall(BaseModel):
    """A call that has not settled: suspended (waiting for an answer) or not yet executed."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    suspended: bool
    payload: Any = None
    resume_schema: dict[str, Any] | None = None
    nested: NestedSuspension | None = None
    """Set when the call waits on a sub-agent it runs: the call's questions are the sub-agent's."""


class NestedSuspension(BaseModel):
    """A suspended sub-agent run that a tool call of its caller waits on.

    ``state`` is the sub-agent's run as its own checkpoint held it, moved into the caller's
    checkpoint so the two are saved, resumed and dropped as one; ``agent_id`` names the
    sub-agent the way the tool that runs it does (``None``: it gives no name).
    """

    agent_id: str | None = None
    state: AgentState


class Question(NamedTuple):
    """A call that waits for an answer, and the sub-agent that asks it (``None``: the run's own
    agent)."""

    agent_id: str | None
    call: PendingToolCall


class GraphState(BaseModel):
    """Where a LangGraph agent's graph stands (``runtime.graph``): its LangGraph checkpoints,
    serialised by LangGraph, and the interrupt each waiting call is answered through."""

    checkpoints: list[dict[str, Any]] = Field(default_factory=list)
    interrupts: dict[str, str] = Field(default_factory=dict)
    """A waiting call's id → the id of the LangGraph interrupt its answer resumes."""


class AgentState(BaseModel):
    """What ``agent.get_state()`` returns and what a checkpoint holds."""

    run_id: str | None = None
    status: RunStatus = RunStatus.IDLE
    message_list: SerializedMessageList = Field(default_factory=SerializedMessageList)
    pending_tool_calls: dict[str, PendingToolCall] = Field(default_factory=dict)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str | None = None
    thread_id: str | None = None
    resource_id: str | None = None
    tenant_id: str | None = None
    max_iterations: int | None = None
    sub_agent_usage: list[SubAgentUsage] = Field(default_factory=list)
    run_seconds: float = 0.0
    """How long the run has executed so far, over all its segments; time it waited suspended is
    not counted (the agent's ``timeout_s`` is held against this)."""
    graph: GraphState | None = None
    """A LangGraph agent's graph, for its next segment (None: runyard's own loop)."""

    def questions(self) -> list[Question]:
        """Every call that waits for an answer, its sub-agents' (at any depth) included."""
        return open_questions(self.pending_tool_calls)

    def waiting_call(self, tool_call_id: str) -> PendingToolCall | None:
        """The run's own pending call that an answer to ``tool_call_id`` resumes: that call when
        it waits itself, else the call whose sub-agent asks it."""
        entry = self.pending_tool_calls.get(tool_call_id)
        if entry is not None and entry.suspended and entry.nested is None:
            return entry
        for entry in self.pending_tool_calls.values():
            nested = entry.nested
            if nested is not None and any(
                q.call.tool_call_id == tool_call_id for q in nested.state.questions()
            ):
                return entry
        return None


def open_questions(pending: dict[str, PendingToolCall]) -> list[Question]:
    """The questions of ``pending``: its suspended calls, and those of the sub-agents it waits on
    (each named by the innermost sub-agent that has a name)."""
    found: list[Question] = []
    for entry in pending.values():
        nested = entry.nested
        if nested is not None:
            found.extend(
                Question(q.agent_id if q.agent_id is not None else nested.agent_id, q.call)
                for q in nested.state.questions()
            )
        elif entry.suspended:
            found.append(Question(None, entry))
    return found


class CheckpointStore(Protocol):
    """Where suspended runs wait, keyed by run id. States are plain JSON-ready dicts."""

    async def save(self, key: str, state: dict[str, Any]) -> None: ...

    async def load(self, key: str) -> dict[str, Any] | None: ...

    async def delete(self, key: str) -> None: ...


class InMemoryCheckpointStore:
    """Checkpoints in a dict: for tests and single-process use; nothing survives a restart."""

    def __init__(self) -> None:
        self._states: dict[str, dict[str, Any]] = {}

    def __len__(self) -> int:
        return len(self._states)

    async def save(self, key: str, state: dict[str, Any]) -> None:
        self._states[key] = copy.deepcopy(state)

    async def load(self, key: str) -> dict[str, Any] | None:
        state = self._states.get(key)
        return copy.deepcopy(state) if state is not None else None

    async def delete(self, key: str) -> None:
        self._states.pop(key, None)


class RunStateManager:
    """Suspend, resume and complete runs over a ``CheckpointStore``."""

    def __init__(self, store: CheckpointStore) -> None:
        self.store = store

    async def suspend(self, state: AgentState) -> None:
        assert state.run_id is not None
        saved = state.model_copy(update={"status": RunStatus.SUSPENDED})
        await self.store.save(state.run_id, saved.model_dump(mode="json"))

    async def take(self, run_id: str) -> AgentState:
        """Load a suspended run and forget its checkpoint: whoever took it keeps it now (a
        sub-agent's run moves into the checkpoint of the run that called it)."""
        state = await self.resume(run_id)
        await self.complete(run_id)
        return state.model_copy(update={"status": RunStatus.SUSPENDED})

    async def load(self, run_id: str) -> AgentState | None:
        """The run's checkpoint as it was saved, or None when it has none."""
        raw = await self.store.load(run_id)
        return None if raw is None else AgentState.model_validate(raw)

    async def resume(self, run_id: str) -> AgentState:
        """Load a suspended run (the checkpoint stays until ``complete``)."""
        state = await self.load(run_id)
        if state is None:
            raise ResumeError(f"No suspended run found for runId: {run_id}")
        if state.status is not RunStatus.SUSPENDED:
            raise ResumeError(f"Run {run_id} is not suspended. Cannot resume.")
        return state.model_copy(update={"status": RunStatus.RUNNING})

    async def exists(self, run_id: str) -> bool:
        """True while ``run_id`` has a checkpoint, whatever state it holds."""
        return await self.store.load(run_id) is not None

    async def complete(self, run_id: str) -> None:
        """Forget the run's checkpoint (nothing to do when it has none)."""
        await self.store.delete(run_id)


# The three refer to each other: resolved once all exist.
PendingToolCall.model_rebuild()
NestedSuspension.model_rebuild()
AgentState.model_rebuild()
