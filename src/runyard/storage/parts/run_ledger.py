"""``RunLedger``: runs, at most one open per thread, each driven under a lease.

A lease has an owner, an epoch and an expiry. Writes carry the writer's epoch, so a driver that
lost its run (taken over after its lease expired) can no longer change it (DESIGN.md §8).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from runyard.storage.parts.conversations import Message
from runyard.storage.records import (
    OpeningEvent,
    RunQuota,
    RunRecord,
    RunSnapshot,
    RunStart,
    RunStatus,
    StoredEvent,
)

__all__ = ["RunLedger"]


@runtime_checkable
class RunLedger(Protocol):
    """Open, fence, renew, take over and close runs; keyed by run and thread id only."""

    async def open_run(
        self,
        run_id: str,
        *,
        thread_id: str,
        tenant_id: str,
        owner: str,
        status: RunStatus = "running",
        lease_until: int | None = None,
        agent_id: str | None = None,
        quota: RunQuota | None = None,
    ) -> RunRecord:
        """Insert an open run of ``agent_id`` at lease epoch 1, leased to ``owner`` until
        ``lease_until`` (epoch ms; default 30 s from now). ``RunConflict`` if the thread already
        has an open run (decided by the database, so of racing callers exactly one wins; a run
        that closes while the insert races it is no conflict). A run id used before raises
        ``StorageError``.

        With ``quota``, ``RunQuotaReached`` when the tenant's running runs, or its running runs
        of ``agent_id``, already fill it: counted and inserted in one transaction that racing
        openers of the same tenant take in turn, so every replica sees one count."""
        ...

    async def start_run(
        self,
        run_id: str,
        messages: Sequence[Message],
        /,
        *,
        thread_id: str,
        tenant_id: str,
        resource_id: str,
        owner: str,
        lease_until: int | None = None,
        agent_id: str | None = None,
        quota: RunQuota | None = None,
        metadata: dict[str, Any] | None = None,
        opening: Sequence[OpeningEvent] = (),
    ) -> RunStart:
        """A new run's start, in one transaction: the thread claimed for its owner
        (``tenant_id``, ``resource_id``) as ``Conversations.save_thread`` does, with
        ``metadata`` when given; the run opened as ``open_run`` opens it (running);
        ``messages`` saved as ``Conversations.save_messages`` saves them; and the ``opening``
        events appended to the thread's log, the run's, numbered on from the log's end and
        stamped with the run's start. Nothing is written when any of it is refused
        (``RunConflict``, ``RunQuotaReached``, ``ThreadOwnershipError``). The ``RunStart``
        also says where the thread's log (before ``opening``) and its run snapshots ended as
        the run opened, holds the thread's plan, and the opening events as stored, so the run
        need not read them again."""
        ...

    async def get_run(self, run_id: str) -> RunRecord | None:
        """The run, open or closed."""
        ...

    async def get_active_run(self, thread_id: str) -> RunRecord | None:
        """The thread's open run, if any."""
        ...

    async def list_open_runs(self, *, tenant_id: str | None = None) -> list[RunRecord]:
        """Every open run (of one tenant when given), oldest first."""
        ...

    async def update_run_status(self, run_id: str, status: RunStatus, *, epoch: int) -> RunRecord:
        """Move an open run between open statuses (running/suspended). ``StaleLease`` when
        ``epoch`` is not the current one or the run is closed; ``RunNotFound`` when unknown."""
        ...

    async def close_run(
        self,
        run_id: str,
        status: RunStatus,
        *,
        epoch: int,
        reason: str | None = None,
        final_events: Sequence[StoredEvent] = (),
        snapshot: RunSnapshot | None = None,
    ) -> RunRecord:
        """Finish an open run with a final status and, in the same transaction, forget its
        progress and tool calls (``ToolLedger``: a closed run is never taken over, so nothing
        it left is wanted), append ``final_events`` to their thread's log as
        ``EventLogStore.append_events`` does (its ``run-finish``: durable with the close, never
        after it), and store ``snapshot`` when given (``RunSnapshots.save_run_snapshots``; the
        caller keeps the thread's snapshots a prefix of its log). ``StaleLease``/``RunNotFound``
        as above, ``EventIdConflict`` for an event id the log holds — and nothing written."""
        ...

    async def take_over(
        self,
        run_id: str,
        new_owner: str,
        *,
        lease_until: int | None = None,
        epoch: int | None = None,
    ) -> RunRecord:
        """Give an open run's lease to ``new_owner`` with the next epoch, until ``lease_until``
        (default 30 s from now); writes carrying the old epoch are rejected from now on.
        ``StaleLease`` if the run is closed, or — when ``epoch`` is given — if the run's epoch is
        no longer ``epoch``: of callers that read the same epoch, exactly one takes the run."""
        ...

    async def renew_leases(self, owner: str, until: int) -> list[str]:
        """Set the lease expiry of every open run ``owner`` holds to ``until``, in one statement;
        the ids of those runs. A run ``owner`` drives that is missing was taken over (or closed)."""
        ...

    async def list_expired_runs(self, now: int) -> list[RunRecord]:
        """Running runs whose lease ended at or before ``now``, oldest first. A suspended run
        has no driver to lose, so it never counts as expired."""
        ...

    async def lease_owners(self, now: int) -> list[str]:
        """The owners of the leases of running runs that have not ended by ``now``."""
        ...

    async def expire_leases(self, owner: str, now: int) -> list[str]:
        """End at ``now`` every lease ``owner`` holds on a running run, so the next sweep takes
        those runs over (its owner is known dead: ``InstanceLiveness``); their ids."""
        ...

    async def take_over_expired(
        self, run_id: str, new_owner: str, *, now: int, lease_until: int
    ) -> RunRecord | None:
        """``take_over``, but only while the run is running with a lease that ended at or before
        ``now`` — one conditional update, so of racing sweepers exactly one gets the run. None
        when it was renewed, taken or closed meanwhile."""
        ...

    async def request_cancel(self, run_id: str, *, at: int) -> RunRecord | None:
        """Record at ``at`` (epoch ms) that the open run is to be cancelled; the first request's
        time is kept. The run as it is now; None when it is closed or unknown."""
        ...

    async def list_cancel_requested(self, owner: str) -> list[RunRecord]:
        """The open runs ``owner`` holds whose cancel was requested, oldest first."""
        ...

    async def release_lease(self, run_id: str, *, epoch: int, now: int) -> bool:
        """End at ``now`` the lease of the open run held at ``epoch``, so that the next sweep of
        any process takes the run over; the owner and epoch stay. False when the run is closed,
        unknown or its epoch moved on (then it is someone else's, and nothing changes)."""
        ...
