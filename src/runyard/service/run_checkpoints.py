"""``RunCheckpoints``: the service's one way to a run's checkpoint — through its agents.

The service never reads or deletes a checkpoint in the store itself: every agent keeps its runs'
checkpoints in its own checkpoint store (``agent.checkpoints``), which may be the service's
database, another one, or memory. A run's row does not name its agent, so a run known only by id
(the crash sweep's) is looked up in every distinct checkpoint store the agents use; in a server
they all share one store, and this is one lookup. Run ids are unique, so no other run's
checkpoint can answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from runyard.agent import Agent
from runyard.runtime import InMemoryCheckpointStore, RunStateManager

__all__ = ["RunCheckpoints"]


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

    async def drop(self, run_id: str) -> None:
        """Forget the run's checkpoint: the run is over and can never be resumed."""
        for manager in self._managers:
            await manager.complete(run_id)
