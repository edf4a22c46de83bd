"""``LeaseKeeper``: this process's custody of its runs — leases kept, lost ones let go, handed over.

From ``keep_leases`` to ``hand_over`` a heartbeat, every third of a lease, retries the endings
this process owes, renews its leases, stops the runs whose lease another process took over,
honours the cancels recorded for the runs it drives (the bus brings most of them at once; the
database has every one) and sweeps the runs of processes that died (``crash_sweep``). A slower
sweep ends the suspensions whose checkpoint expired and forgets old request counts. Handing over
stops every run still going *without finishing it* and releases its lease, so any process's next
sweep carries it on.
"""

from __future__ import annotations

import asyncio
import logging

from runyard.ids import now_ms
from runyard.service.bus import EventBus
from runyard.service.files import sweep_abandoned_uploads
from runyard.service.manager.driven_runs import DrivenRuns
from runyard.service.manager.owed_endings import OwedEndings
from runyard.service.manager.request_rate import RequestRate
from runyard.service.ownership.crash_sweep import CarryOn, close_interrupted_runs
from runyard.service.ownership.death_watch import DeathWatch
from runyard.service.ownership.leases import Heartbeat, LeaseTerms, lost_leases
from runyard.service.ownership.queue import QueueWorker
from runyard.service.ownership.remote_cancel import CancelListener
from runyard.service.ownership.suspension_expiry import SWEEP_EVERY_SECONDS, end_expired_suspensions
from runyard.service.runs.active import USER_CANCELLED
from runyard.service.runs.finish import RunFinisher
from runyard.storage import RunRecord, Store, database_unavailable

__all__ = ["LeaseKeeper"]

logger = logging.getLogger(__name__)

_HAND_OFF_SECONDS = 2.0
"""How long a run handed off at shutdown gets to stop writing before its task is cancelled."""


class LeaseKeeper:
    """Keeps the leases ``instance_id`` holds on ``runs``; a run a sweep takes goes to
    ``carry_on``. A ``worker`` (None: none) claims queued runs while the leases are kept."""

    def __init__(
        self,
        store: Store,
        bus: EventBus,
        finisher: RunFinisher,
        runs: DrivenRuns,
        endings: OwedEndings,
        *,
        instance_id: str,
        lease: LeaseTerms,
        carry_on: CarryOn,
        request_rate: RequestRate,
        worker: QueueWorker | None,
    ) -> None:
        self._store = store
        self._finisher = finisher
        self._runs = runs
        self._endings = endings
        self._instance_id = instance_id
        self._lease = lease
        self._carry_on = carry_on
        self._request_rate = request_rate
        self._worker = worker
        self._cancels = CancelListener(bus, instance_id, self._cancel_requested)
        self._heartbeat = Heartbeat(self._beat, lease.renew_every)
        self._death_watch = DeathWatch(store, instance_id)
        self._liveness = Heartbeat(self._watch, lease.liveness_seconds)
        self._expiry_sweep = Heartbeat(self._sweep_expired, SWEEP_EVERY_SECONDS)

    async def keep_leases(self) -> list[str]:
        """Give up what a previous life of this instance id held, sweep, then start the
        heartbeats, the cancel listener and the worker; the ids swept."""
        if self._runs:
            raise RuntimeError("keep_leases() belongs before the first run of this manager")
        await self._store.renew_leases(self._instance_id, now_ms())
        if self._lease.liveness_seconds:
            # A lock gone at start-up is a process gone: its runs go on now, not a lease later.
            await self._death_watch.expire_the_dead(at_once=True)
        swept = await close_interrupted_runs(
            self._finisher,
            instance_id=self._instance_id,
            lease=self._lease,
            own=True,
            carry_on=self._carry_on,
        )
        await self.expire_suspensions()
        await self._cancels.start()
        if self._worker is not None:
            await self._worker.start()
        self._heartbeat.start()
        self._expiry_sweep.start()
        if self._lease.liveness_seconds:
            self._liveness.start()
        return swept

    async def sweep_interrupted(self) -> list[str]:
        """Settle the runs of other processes whose lease expired; their ids."""
        return await close_interrupted_runs(
            self._finisher,
            instance_id=self._instance_id,
            lease=self._lease,
            carry_on=self._carry_on,
        )

    async def expire_suspensions(self) -> list[str]:
        """End the suspended runs whose checkpoint expired, of every process; the ids ended."""
        return await end_expired_suspensions(
            self._finisher, owner=self._instance_id, lease=self._lease
        )

    async def hand_over(self, settle_seconds: float) -> None:
        """Claim nothing more, give the runs going ``settle_seconds`` to end while their leases
        are renewed, then stop the heartbeats and hand the rest over."""
        if self._worker is not None:
            await self._worker.stop()  # claims nothing more; what it drives is handed over
        tasks = self._runs.tasks()
        if tasks:
            await asyncio.wait(tasks, timeout=settle_seconds)
        await self._heartbeat.stop()
        await self._expiry_sweep.stop()
        await self._liveness.stop()
        await self._hand_off()
        await self._cancels.stop()

    async def _hand_off(self) -> None:
        """Stop driving every run still going, then release its lease (epoch-fenced)."""
        going = [run for run in self._runs.values() if run.task is not None]
        for run in going:
            run.lose_lease()
        tasks = {run.task: run for run in going if run.task is not None}
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=_HAND_OFF_SECONDS)
            for task in pending:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        now = now_ms()
        for run in going:
            try:
                released = await self._store.release_lease(run.run_id, epoch=run.epoch, now=now)
            except Exception:
                logger.exception("run %s: releasing its lease failed; it expires", run.run_id)
                continue
            if released:
                logger.warning("run %s: handed over at shutdown (lease released)", run.run_id)

    async def _beat(self) -> None:
        """Retry failed endings, renew this process's leases, stop runs it lost, sweep."""
        await self._endings.retry()
        renewed = await self._store.renew_leases(self._instance_id, self._lease.until())
        driving = list(self._runs.values())
        for run in await lost_leases(self._store, self._instance_id, driving, renewed):
            logger.warning("run %s: another process took its lease over; stopping", run.run_id)
            run.lose_lease()
        # A cancel message may have been lost on the way: the database has every request.
        for row in await self._store.list_cancel_requested(self._instance_id):
            self._honour_cancel(row)
        await self.sweep_interrupted()

    async def _watch(self) -> None:
        """Take over the runs of siblings that died, as soon as the watch is sure."""
        try:
            ended = await self._death_watch.expire_the_dead()
        except Exception as error:
            if not database_unavailable(error):
                raise
            return  # the lease heartbeat reports the outage; this one waits for the next beat
        if ended:
            await self.sweep_interrupted()

    async def _sweep_expired(self) -> None:
        await self.expire_suspensions()
        await self._request_rate.sweep()
        await sweep_abandoned_uploads(self._store, now_ms())

    async def _cancel_requested(self, run_id: str) -> None:
        """A cancel message for ``run_id``: cancel it if this process drives it and the
        database, the truth, holds the request at the epoch it drives."""
        row = await self._store.get_run(run_id)
        if row is not None:
            self._honour_cancel(row)

    def _honour_cancel(self, row: RunRecord) -> None:
        if row.cancel_requested_at is None:
            return
        for run in self._runs.values():
            if (run.run_id, run.epoch) == (row.run_id, row.lease_epoch) and not run.lease_lost:
                run.cancel(USER_CANCELLED)
