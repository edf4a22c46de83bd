"""``DeathWatch``: a sibling process's runs taken over seconds after it dies, not a lease later.

Every ``RUNYARD_LIVENESS_SECONDS`` each process holds its own instance lock
(``InstanceLiveness``: a PostgreSQL session's advisory lock, a SQLite file lock) and asks which
instances holding leases lost theirs. One seen dead on ``CONFIRMATIONS`` checks in a row has
its runs' leases ended, and the crash sweep — the one way runs are taken over — takes them at
once. The checks in a row ride out a database restart, which ends every session and so every
PostgreSQL lock for a moment, until the live processes take theirs anew (each does on its next
check, before it judges anyone).

A process whose own hold is gone (the database is away, or it cannot hold one) judges nobody:
what it cannot see it leaves to the lease, which stays the backstop for a process that hangs
with its session open. A live process misjudged dead (its session cut by a partition) loses
its runs as it would to an expired lease: its writes carry a superseded epoch and are refused.
"""

from __future__ import annotations

from runyard.ids import now_ms
from runyard.service.ownership.leases import instance_of
from runyard.storage import Store

__all__ = ["CONFIRMATIONS", "DeathWatch"]

CONFIRMATIONS = 3
"""Checks in a row an instance must be seen dead on before its leases are ended."""


class DeathWatch:
    """Ends the leases of instances whose process died, as ``instance_id`` sees them."""

    def __init__(self, store: Store, instance_id: str) -> None:
        self._store = store
        self._instance_id = instance_id
        self._seen_dead: dict[str, int] = {}

    async def expire_the_dead(self, *, at_once: bool = False) -> list[str]:
        """Hold this instance's lock, then end the leases of every instance seen dead on
        ``CONFIRMATIONS`` checks in a row (on this one alone with ``at_once``: at start-up,
        when a lock gone is a process gone); the ids of the runs whose lease ended."""
        if not await self._store.hold_instance(self._instance_id):
            self._seen_dead.clear()
            return []
        now = now_ms()
        owners = [
            owner
            for owner in await self._store.lease_owners(now)
            if instance_of(owner) != self._instance_id
        ]
        dead = await self._store.dead_instances({instance_of(owner) for owner in owners})
        self._seen_dead = {instance: self._seen_dead.get(instance, 0) + 1 for instance in dead}
        needed = 1 if at_once else CONFIRMATIONS
        ended: list[str] = []
        for owner in owners:
            if self._seen_dead.get(instance_of(owner), 0) >= needed:
                ended += await self._store.expire_leases(owner, now)
        return ended
