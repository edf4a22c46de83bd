"""Cancel from any replica: the database holds the request, the bus carries the news.

A cancel sent to a process that does not drive the run is recorded on the run's row
(``RunRecord.cancel_requested_at``) and announced to the run's owner with a control message
(``EventBus.send_control``). The owner cancels the run as soon as the message arrives, and on
every heartbeat also looks in the database for its runs with a pending cancel, so a lost message
only delays a cancel. A process that takes over a run whose owner died first asks
``end_if_cancel_requested``: a pending cancel ends the run instead of resuming it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable

from runyard.ids import now_ms
from runyard.service.bus import EventBus, EventBusClosedError
from runyard.service.event_log import EventLog
from runyard.service.ownership.leases import LeaseTerms
from runyard.service.ownership.owned_task import stop_task
from runyard.service.runs.active import USER_CANCELLED
from runyard.service.runs.finish import RunEnding, RunFinisher
from runyard.storage import RunLedger, RunRecord, StaleLease

__all__ = [
    "CancelListener",
    "cancel_queued",
    "end_if_cancel_requested",
    "request_cancel",
    "wait_until_settled",
]

logger = logging.getLogger(__name__)

_CANCEL = "cancel:"
"""A control message ``cancel:<run id>`` asks the run's owner to cancel it."""
_RECHECK_SECONDS = 0.25
"""While waiting for a run to end: how often its row is read, beside the events that wake us."""


async def request_cancel(store: RunLedger, bus: EventBus, run: RunRecord) -> bool:
    """Record that ``run``, driven by another process, is to be cancelled, then tell its owner.
    False when the run had closed meanwhile (nothing to cancel)."""
    if await store.request_cancel(run.run_id, at=now_ms()) is None:
        return False
    await bus.send_control(run.lease_owner, _CANCEL + run.run_id)
    return True


async def end_if_cancel_requested(finisher: RunFinisher, run: RunRecord) -> bool:
    """Finish ``run`` — just taken over, ``run.lease_epoch`` is the taker's — as cancelled by
    its user when a cancel is pending; True when it was (then do not resume or settle it)."""
    if run.cancel_requested_at is None:
        return False
    ending = RunEnding("cancelled", USER_CANCELLED.reason)
    await finisher.finish(run.run_id, run.thread_id, ending, epoch=run.lease_epoch)
    return True


async def cancel_queued(
    finisher: RunFinisher, run: RunRecord, instance_id: str, lease: LeaseTerms
) -> RunRecord | None:
    """Cancel ``run``, waiting in the queue for a worker. The request is recorded first, so a
    worker that claims the run meanwhile ends it cancelled; else ``instance_id`` takes it, out of
    the queue, and finishes it. The row afterwards: None when it ended here, running when a
    worker had claimed it (then it is cancelled as any run elsewhere is)."""
    store = finisher.store
    if await store.request_cancel(run.run_id, at=now_ms()) is None:
        return await store.get_run(run.run_id)
    try:
        held = await store.take_over(
            run.run_id, instance_id, lease_until=lease.until(), epoch=run.lease_epoch
        )
        # Out of the queue before anything is logged: no worker can claim it any more.
        held = await store.update_run_status(run.run_id, "running", epoch=held.lease_epoch)
    except StaleLease:
        return await store.get_run(run.run_id)
    ending = RunEnding("cancelled", USER_CANCELLED.reason)
    await finisher.finish(run.run_id, run.thread_id, ending, epoch=held.lease_epoch)
    return None


async def wait_until_settled(
    events: EventLog, store: RunLedger, run: RunRecord, within: float
) -> RunRecord | None:
    """Wait up to ``within`` seconds until ``run`` neither runs nor waits to: it logged its
    ``run-finish`` or closed, or it waits for an answer. The row as it is then (None: gone)."""
    cursor = await events.store.last_event_id(run.thread_id)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within), events.reader(run.thread_id, cursor) as reader:
            while True:
                row = await store.get_run(run.run_id)
                if row is None or row.status not in ("queued", "running"):
                    return row
                batch = await reader.next(max_wait=_RECHECK_SECONDS)
                if any(_finishes(run.run_id, event.json) for event in batch):
                    break
    return await store.get_run(run.run_id)


def _finishes(run_id: str, event_json: str) -> bool:
    event = json.loads(event_json)
    return bool(event.get("type") == "run-finish" and event.get("runId") == run_id)


class CancelListener:
    """Receives the cancel messages sent to ``instance_id`` and passes each run id to
    ``cancel``, in a task of its own from ``start`` to ``stop``."""

    def __init__(
        self, bus: EventBus, instance_id: str, cancel: Callable[[str], Awaitable[None]]
    ) -> None:
        self._bus = bus
        self._instance_id = instance_id
        self._cancel = cancel
        self._task: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()

    async def start(self) -> None:
        """Begin listening; returns once the bus listens for this instance."""
        if self._task is None:
            self._task = asyncio.create_task(self._listen(), name="runyard-cancel-listener")
            await self._listening.wait()

    async def stop(self) -> None:
        """Stop listening and wait until the task is gone."""
        task, self._task = self._task, None
        await stop_task(task)

    async def _listen(self) -> None:
        try:
            async with self._bus.control(self._instance_id) as inbox:
                self._listening.set()
                while True:
                    message = await inbox.get()
                    if message.startswith(_CANCEL):
                        await self._pass_on(message.removeprefix(_CANCEL))
        except EventBusClosedError:
            pass  # the heartbeat's look at the database still finds every pending cancel
        finally:
            self._listening.set()

    async def _pass_on(self, run_id: str) -> None:
        try:
            await self._cancel(run_id)
        except Exception:
            logger.exception("run %s: acting on its cancel failed; the heartbeat retries", run_id)
