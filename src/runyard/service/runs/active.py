"""``ActiveRun``: what this process knows about a run it is driving right now."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from runyard.agent import Agent
from runyard.service.background.tasks import BackgroundTasks
from runyard.service.owner import Owner

__all__ = ["ActiveRun", "CancelReason"]


@dataclass(frozen=True, slots=True)
class CancelReason:
    """Why a run is being aborted: the ``reason`` of its ``run-finish {"status": "cancelled"}``."""

    reason: str


USER_CANCELLED = CancelReason("user_cancelled")


@dataclass(eq=False)
class ActiveRun:
    """One run segment (the first one, or one resume) owned by this process's run manager."""

    run_id: str
    thread_id: str
    owner: Owner
    agent: Agent
    epoch: int
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    cancel_reason: CancelReason | None = None
    task: asyncio.Task[None] | None = None
    finishing: bool = False
    """Set once the run is being finished: it only has to log ``run-finish`` and close its row."""
    lease_lost: bool = False
    """Set once another process has taken the run over: this one stops and writes nothing more."""
    background: BackgroundTasks = field(init=False)
    """The sub-agents this segment runs in the background; they follow the run's ``abort``."""

    def __post_init__(self) -> None:
        self.background = BackgroundTasks(self.run_id, self.abort)

    def cancel(self, reason: CancelReason) -> None:
        """Abort the agent's stream; the segment then ends the run with ``reason``."""
        if self.cancel_reason is None:
            self.cancel_reason = reason
        self.abort.set()

    def lose_lease(self) -> None:
        """Abort the agent's stream and leave the run's ending to whoever took its lease."""
        self.lease_lost = True
        self.abort.set()
