"""``RunQueue``: runs waiting for a worker replica, claimed by exactly one.

An ``api`` replica accepts a run, logs its opening and puts it into the queue (status ``queued``);
``worker`` replicas claim queued runs, oldest first, each one taking its lease at the next epoch.
The queue is the ``runs`` table itself, so a queued run is still the thread's one open run (a new
message on its thread is refused), and the database decides which claimer gets it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from runyard.storage.records import QueuedWork, RunRecord

__all__ = ["RunQueue"]


@runtime_checkable
class RunQueue(Protocol):
    """Queue the runs a caller holds; claim them for a worker."""

    async def queue_run(
        self, run_id: str, work: QueuedWork, *, epoch: int, request_id: str | None = None
    ) -> RunRecord:
        """Put the open run held at ``epoch`` into the queue for ``work`` (``request_id``: the
        confirmation a ``resume`` answers): status ``queued``, queued now. ``StaleLease`` when
        ``epoch`` is not the current one or the run is closed; ``RunNotFound`` when unknown."""
        ...

    async def claim_queued_runs(
        self, owner: str, *, limit: int, lease_until: int
    ) -> list[RunRecord]:
        """Take up to ``limit`` queued runs, the longest queued first: each becomes ``running``,
        leased to ``owner`` until ``lease_until`` at the next epoch. Of racing claimers each run
        goes to exactly one, and none waits for another (PostgreSQL: ``FOR UPDATE SKIP
        LOCKED``)."""
        ...
