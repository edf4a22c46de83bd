"""``Canceller``: ends a thread's open run as ``cancelled``, wherever it is.

A run this process drives is aborted and its segment ends it; a queued one is taken out of the
queue and finished; one another process drives is cancelled through the database and that
process (``remote_cancel``) — or by the sweep when that process is gone; a suspended one has its
questions answered first, so a confirm racing the cancel either loses or wins (then the cancel
is retried, ``RunBusy``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from runyard.ids import now_ms
from runyard.service.errors import RunBusy
from runyard.service.event_log import EventLog
from runyard.service.manager.driven_runs import SETTLE_SECONDS, DrivenRuns
from runyard.service.manager.keyed_lock import KeyedLock
from runyard.service.owner import Owner
from runyard.service.ownership.leases import LeaseTerms
from runyard.service.ownership.remote_cancel import (
    cancel_queued,
    request_cancel,
    wait_until_settled,
)
from runyard.service.runs.active import USER_CANCELLED
from runyard.service.runs.finish import RunEnding, RunFinisher
from runyard.storage import RunRecord, StaleLease, Store

__all__ = ["Canceller"]


class Canceller:
    """Cancels the runs of ``store``'s threads; ``sweep`` settles the runs of dead processes."""

    def __init__(
        self,
        store: Store,
        events: EventLog,
        finisher: RunFinisher,
        runs: DrivenRuns,
        locks: KeyedLock,
        *,
        instance_id: str,
        lease: LeaseTerms,
        sweep: Callable[[], Awaitable[object]],
    ) -> None:
        self._store = store
        self._events = events
        self._finisher = finisher
        self._runs = runs
        self._locks = locks
        self._instance_id = instance_id
        self._lease = lease
        self._sweep = sweep

    async def cancel(self, owner: Owner, thread_id: str) -> bool:
        """End the thread's open run as ``cancelled``; False when nothing was open."""
        key = owner.thread_key(thread_id)
        mine = await self._store.get_thread(
            key, tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
        if mine is None:
            return False
        async with self._locks.hold(key):
            local = self._runs.get(key)
            if local is not None:
                local.cancel(USER_CANCELLED)
                await self._runs.settle(key)
            run = await self._store.get_active_run(key)
            if run is None:
                return local is not None
            if run.status == "running" and local is not None and local.run_id == run.run_id:
                return True  # still ending here, after the settle's bound
            if run.status == "queued":
                run = await cancel_queued(self._finisher, run, self._instance_id, self._lease)
            if run is not None and run.status == "running":
                run = await self._cancel_elsewhere(run)
            if run is not None and run.status == "suspended":
                await self._cancel_suspended(run)
            return True

    async def _cancel_elsewhere(self, run: RunRecord) -> RunRecord | None:
        """Cancel a running run this process does not drive; the row once it stopped running
        (None: gone), or as it is after the wait's bound."""
        if not await request_cancel(self._store, self._events.bus, run):
            return await self._store.get_run(run.run_id)
        if run.lease_expires_at <= now_ms():
            await self._sweep()  # its owner is gone: the sweep honours the cancel
        return await wait_until_settled(self._events, self._store, run, SETTLE_SECONDS)

    async def _cancel_suspended(self, run: RunRecord) -> None:
        """End a run that waits for confirmations. Its questions are answered first: a confirm
        racing the cancel either loses here or wins, and then the cancel is retried."""
        reason = USER_CANCELLED.reason
        if not await self._finisher.answer_pending(run.run_id, run.thread_id, reason):
            raise RunBusy(f"run {run.run_id} was just confirmed; retry the cancel")
        try:
            record = await self._store.take_over(
                run.run_id, self._instance_id, lease_until=self._lease.until()
            )
        except StaleLease:
            return  # closed meanwhile by someone else: nothing left to cancel
        ending = RunEnding("cancelled", reason)
        await self._finisher.finish(run.run_id, run.thread_id, ending, epoch=record.lease_epoch)
