"""Run state: the serialisable snapshot of a run, and where suspended runs are kept.

``CheckpointStore`` is the seam: the in-memory store lives here; ``runyard.storage`` provides a
durable one so a run suspended by one process can be resumed by another.
"""

from __future__ import annotations

import copy
from enum import StrEnum
from typing import Any, Protocol

from pydantic import BaseModel, Field

from runyard.errors import ResumeError
from runyard.models import Usage
from runyard.runtime.message_list import SerializedMessageList
from runyard.runtime.results import SubAgentUsage

__all__ = [
    "AgentState",
    "CheckpointStore",
    "InMemoryCheckpointStore",
    "PendingToolCall",
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

    async def resume(self, run_id: str) -> AgentState:
        """Load a suspended run (the checkpoint stays until ``complete``)."""
        raw = await self.store.load(run_id)
        if raw is None:
            raise ResumeError(f"No suspended run found for runId: {run_id}")
        state = AgentState.model_validate(raw)
        if state.status is not RunStatus.SUSPENDED:
            raise ResumeError(f"Run {run_id} is not suspended. Cannot resume.")
        return state.model_copy(update={"status": RunStatus.RUNNING})

    async def exists(self, run_id: str) -> bool:
        """True while ``run_id`` has a checkpoint, whatever state it holds."""
        return await self.store.load(run_id) is not None

    async def saved(self, run_id: str) -> AgentState | None:
        """The run's checkpoint as it was saved, whatever its status; None when it has none."""
        raw = await self.store.load(run_id)
        return None if raw is None else AgentState.model_validate(raw)

    async def complete(self, run_id: str) -> None:
        """Forget the run's checkpoint (nothing to do when it has none)."""
        await self.store.delete(run_id)
