"""Instance identity and the lease heartbeat (DESIGN.md §8: only an expired lease is taken over).

Every process has an instance id of its own; it owns the leases of the runs the process drives.
A heartbeat renews them every third of a lease, so a lease expires only when its owner stopped
renewing for a whole lease — it died, hung, or lost the database. Nothing here ends a run: the
run manager decides what a beat means for the runs it drives, and the crash sweep settles the
runs whose lease expired.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from runyard.ids import now_ms
from runyard.service.ownership.owned_task import stop_task
from runyard.service.runs.active import ActiveRun
from runyard.storage import RunLedger

__all__ = [
    "Heartbeat",
    "LeaseTerms",
    "instance_of",
    "lost_leases",
    "new_instance_id",
    "sweeper_of",
]

logger = logging.getLogger(__name__)


def new_instance_id(configured: str = "") -> str:
    """``configured`` (``RUNYARD_INSTANCE_ID``) when set, else ``<host name>-<random hex>``.

    A configured id must be unique among the processes alive at one time: two processes with
    one id renew each other's leases, and a restart with the same id gives up what the
    previous life held.
    """
    return configured or f"{socket.gethostname()}-{secrets.token_hex(6)}"


_SWEEPER = "/sweep"


def sweeper_of(instance_id: str) -> str:
    """The lease owner a crash sweep of ``instance_id`` holds the runs it settles as."""
    return f"{instance_id}{_SWEEPER}"


def instance_of(lease_owner: str) -> str:
    """The instance behind a lease owner: itself, or the one a sweeper owner names."""
    return lease_owner.removesuffix(_SWEEPER)


@dataclass(frozen=True, slots=True)
class LeaseTerms:
    """How long a lease lasts: renewed every third of it, so two beats may fail in a row; and
    how often a process checks that the owners of other leases are alive (``DeathWatch``; 0:
    never, the lease alone decides)."""

    seconds: float = 30.0
    liveness_seconds: float = 1.0

    def __post_init__(self) -> None:
        if self.seconds <= 0:
            raise ValueError(f"a lease lasts a positive time, not {self.seconds} s")
        if self.liveness_seconds < 0:
            raise ValueError(f"liveness is checked every >= 0 s, not {self.liveness_seconds}")

    @property
    def renew_every(self) -> float:
        """Seconds between two renewals."""
        return self.seconds / 3

    def until(self, now: int | None = None) -> int:
        """The end (epoch ms) of a lease taken or renewed at ``now`` (default: this moment)."""
        return (now_ms() if now is None else now) + round(self.seconds * 1000)


async def lost_leases(
    store: RunLedger, owner: str, driving: Iterable[ActiveRun], renewed: Iterable[str]
) -> list[ActiveRun]:
    """The runs this process drives whose lease ``owner`` no longer holds: another process
    took them over (their epoch moved on), so this one must stop writing for them.

    ``renewed`` is what ``renew_leases`` just returned; only the runs missing from it are read
    again (a run opened after the renewal is simply still ours).
    """
    kept = set(renewed)
    lost = []
    for run in driving:
        if run.run_id in kept:
            continue
        row = await store.get_run(run.run_id)
        if row is None or (row.lease_owner, row.lease_epoch) != (owner, run.epoch):
            lost.append(run)
    return lost


class Heartbeat:
    """Calls ``beat`` every ``every`` seconds in a task of its own, from ``start`` to ``stop``.

    A failing beat is logged and the next one tries again: a database that is away for less
    than a lease costs nothing.
    """

    def __init__(self, beat: Callable[[], Awaitable[None]], every: float) -> None:
        self._beat = beat
        self._every = every
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Begin beating (the first beat comes after ``every`` seconds)."""
        if self._task is None:
            self._task = asyncio.create_task(self._forever(), name="runyard-lease-heartbeat")

    async def stop(self) -> None:
        """Stop beating and wait until the task is gone."""
        task, self._task = self._task, None
        await stop_task(task)

    async def _forever(self) -> None:
        while True:
            await asyncio.sleep(self._every)
            try:
                await self._beat()
            except Exception:
                logger.exception("the lease heartbeat failed; the next beat tries again")
