"""The run queue between roles: ``api`` replicas queue the runs they accept, ``worker`` replicas
claim and execute them (docs/deploy.md).

The database is the queue (``RunQueue``): a queued run is its thread's one open run, and a claim
takes it at the next lease epoch, so exactly one worker gets each run. Waking a worker is only a
hint: whoever queues a run sends the control message ``queued`` to the inbox every worker shares
(``WORKERS``) over the event bus — Redis between replicas — and every worker also looks at the
queue each poll interval, so a lost message or a Redis outage delays a run by at most that
interval and never loses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from runyard.service.bus import EventBus, EventBusClosedError
from runyard.service.ownership.leases import LeaseTerms
from runyard.service.ownership.owned_task import stop_task
from runyard.storage import QueuedWork, RunQueue, RunRecord

__all__ = ["WORKERS", "QueueWorker", "queue_run"]

logger = logging.getLogger(__name__)

WORKERS = "runyard-workers"
"""The control inbox every worker listens on, beside its own instance id's."""
_QUEUED = "queued"


async def queue_run(
    store: RunQueue,
    bus: EventBus,
    run_id: str,
    work: QueuedWork,
    *,
    epoch: int,
    request_id: str | None = None,
) -> RunRecord:
    """Queue the run the caller holds at ``epoch`` for ``work``, then wake the workers."""
    record = await store.queue_run(run_id, work, epoch=epoch, request_id=request_id)
    await bus.send_control(WORKERS, _QUEUED)
    return record


class QueueWorker:
    """Claims queued runs while this process drives fewer than ``slots`` runs (``busy``) and
    hands each to ``launch``, which must drive it (or end it) before it returns.

    It claims when a worker is woken over the bus, when ``wake`` says a slot came free, and every
    ``poll_seconds`` regardless. Two tasks of its own, from ``start`` to ``stop``.
    """

    def __init__(
        self,
        store: RunQueue,
        bus: EventBus,
        instance_id: str,
        *,
        slots: int,
        busy: Callable[[], int],
        launch: Callable[[RunRecord], Awaitable[None]],
        lease: LeaseTerms,
        poll_seconds: float,
    ) -> None:
        if slots < 1:
            raise ValueError(f"a worker runs at least one run at once, not {slots}")
        self._store = store
        self._bus = bus
        self._instance_id = instance_id
        self._slots = slots
        self._busy = busy
        self._launch = launch
        self._lease = lease
        self._poll_seconds = poll_seconds
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def wake(self) -> None:
        """Claim again now (a run this process drove has ended: a slot is free)."""
        self._wake.set()

    async def start(self) -> None:
        """Listen for wake-ups, then claim what is queued already; returns once listening."""
        if self._tasks:
            return
        listening = asyncio.Event()
        self._tasks = [
            asyncio.create_task(self._listen(listening), name="runyard-queue-listener"),
            asyncio.create_task(self._claim_forever(), name="runyard-queue-worker"),
        ]
        await listening.wait()

    async def stop(self) -> None:
        """Stop claiming; the runs already claimed go on (their owner hands them over)."""
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            await stop_task(task)

    async def _listen(self, listening: asyncio.Event) -> None:
        try:
            async with self._bus.control(WORKERS) as inbox:
                listening.set()
                while True:
                    await inbox.get()
                    self._wake.set()
        except EventBusClosedError:
            pass  # the poll still finds every queued run
        finally:
            listening.set()

    async def _claim_forever(self) -> None:
        while True:
            self._wake.clear()  # a wake-up from now on claims once more
            try:
                await self._claim()
            except Exception:
                logger.exception("claiming queued runs failed; the next poll tries again")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._poll_seconds):
                    await self._wake.wait()

    async def _claim(self) -> None:
        """Fill the free slots from the queue, oldest first, until it is empty."""
        while (free := self._slots - self._busy()) > 0:
            claimed = await self._store.claim_queued_runs(
                self._instance_id, limit=free, lease_until=self._lease.until()
            )
            for run in claimed:
                await self._launch(run)
            if len(claimed) < free:
                return
