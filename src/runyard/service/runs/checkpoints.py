"""``RunCheckpoints``: the service's one way to a run's checkpoint — through its agents.

The service never reads or deletes a checkpoint in the store itself: every agent keeps its runs'
checkpoints in its own checkpoint store (``agent.checkpoints``), which may be the service's
database, another one, or memory. A run's row does not name its agent, so a run known only by id
(the crash sweep's) is looked up in every distinct checkpoint store the agents use; in a server
they all share one store, and this is one lookup. Run ids are unique, so no other run's
checkpoint can answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from runyard.agent import Agent
from runyard.models import Usage
from runyard.runtime import AgentState, InMemoryCheckpointStore, RunStateManager, total_usage

__all__ = ["RunCheckpoints", "askers", "saved_usage", "waiting_sub_agents"]


class RunCheckpoints:
    """The checkpoints of the runs of ``agents``, by run id."""

    def __init__(self, agents: Iterable[Agent]) -> None:
        distinct: dict[int, RunStateManager] = {}
        for agent in agents:
            distinct.setdefault(id(agent.checkpoints.store), agent.checkpoints)
        self._managers = tuple(distinct.values())

    @property
    def shared(self) -> bool:
        """True when every process sees these checkpoints: none is kept in this process's memory
        (where another process's lookup finds nothing, though the run may well have one)."""
        return not any(isinstance(m.store, InMemoryCheckpointStore) for m in self._managers)

    async def exists(self, run_id: str) -> bool:
        """True when the run has a checkpoint (it suspended, or was suspending when it stopped)."""
        for manager in self._managers:
            if await manager.exists(run_id):
                return True
        return False

    async def load(self, run_id: str) -> AgentState | None:
        """The run's checkpoint (read it once, then ask ``saved_usage``, ``askers`` and
        ``waiting_sub_agents`` of it); None when it has none."""
        for manager in self._managers:
            state = await manager.load(run_id)
            if state is not None:
                return state
        return None

    async def drop(self, run_id: str) -> None:
        """Forget the run's checkpoint: the run is over and can never be resumed."""
        for manager in self._managers:
            await manager.complete(run_id)


def saved_usage(state: AgentState) -> Usage:
    """What the run had used by its checkpoint (its suspension), sub-agents included."""
    return total_usage(state.usage, state.sub_agent_usage)


def askers(state: AgentState) -> dict[str, str]:
    """Which sub-agent asks each of the run's questions that a sub-agent asks: tool call id → the
    sub-agent's agent id (the run's own questions are not in it)."""
    return {q.call.tool_call_id: q.agent_id for q in state.questions() if q.agent_id}


def waiting_sub_agents(state: AgentState) -> list[tuple[str, str]]:
    """The sub-agents the run's suspension waits on, at any depth, innermost first: their agent id
    and role (a delegation's ``role``, else the name the tool gives the agent)."""
    return list(_waiting(state))


def _waiting(state: AgentState) -> Iterator[tuple[str, str]]:
    for entry in state.pending_tool_calls.values():
        nested = entry.nested
        if nested is None:
            continue
        yield from _waiting(nested.state)
        if nested.agent_id is not None:
            role = entry.args.get("role")
            yield nested.agent_id, role if isinstance(role, str) else nested.agent_id
