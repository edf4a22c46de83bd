"""``EventWriter``: the single writer of a thread's log in this process.

``emit`` is synchronous and cheap: it numbers the event, serialises it once, puts it in the
channel's tail (so readers here see it at once) and queues it. One background task persists the
queue in batches — whatever accumulated while the previous insert ran goes in the next one, so a
burst of text deltas costs a few transactions, not one each — and then wakes other replicas
through the bus. ``flush`` waits until everything emitted so far is in the store.
"""

from __future__ import annotations

import asyncio
import logging

from runyard.ids import now_ms
from runyard.protocol import WireEvent, event_to_dict, event_to_json
from runyard.service.bus import EventBus
from runyard.service.event_log.channel import LiveEvent, ThreadChannel
from runyard.storage import EventIdConflict, EventLogStore, StoredEvent

__all__ = ["EventLogWriteError", "EventWriter"]

logger = logging.getLogger(__name__)

_ATTEMPTS = 5


class EventLogWriteError(RuntimeError):
    """Events could not be persisted (the store kept failing, or another writer took the ids)."""


class EventWriter:
    """Numbers, publishes and persists one thread's events; use it through ``EventLog.writer``."""

    def __init__(self, channel: ThreadChannel, store: EventLogStore, bus: EventBus) -> None:
        self._channel = channel
        self._store = store
        self._bus = bus
        self._queue: list[tuple[int, WireEvent]] = []
        self._ready = asyncio.Event()
        self._progress = asyncio.Event()
        self._failure: EventLogWriteError | None = None
        self._closing = False
        self._task = asyncio.create_task(self._persist_forever(), name="runyard-event-writer")

    @property
    def thread_id(self) -> str:
        return self._channel.thread_id

    @property
    def last_id(self) -> int:
        """The id of the newest event of the thread (emitted here or found in the store)."""
        return self._channel.last_id

    def emit(self, event: WireEvent) -> int:
        """Append ``event`` to the thread's log and return its id; readers here see it now."""
        if self._failure is not None:
            raise self._failure
        event_id = self._channel.last_id + 1
        self._channel.append(LiveEvent(event_id, event_to_json(event)))
        self._queue.append((event_id, event))
        self._ready.set()
        return event_id

    async def flush(self) -> None:
        """Return once every event emitted so far is persisted; raise if that failed."""
        target = self._channel.last_id
        while self._channel.persisted_id < target:
            if self._failure is not None:
                raise self._failure
            progress = self._progress
            await progress.wait()
        if self._failure is not None:
            raise self._failure

    async def close(self) -> None:
        """Persist what is queued, then stop the background task."""
        self._closing = True
        self._ready.set()
        await asyncio.shield(self._task)

    async def _persist_forever(self) -> None:
        while True:
            await self._ready.wait()
            self._ready.clear()
            batch, self._queue = self._queue, []
            if batch and self._failure is None:
                await self._persist(batch)
            elif batch:
                logger.error("thread %s: dropped %d unpersisted events", self.thread_id, len(batch))
            self._progress.set()
            self._progress = asyncio.Event()
            if self._closing and not self._queue:
                return

    async def _persist(self, batch: list[tuple[int, WireEvent]]) -> None:
        created = now_ms()
        rows = [
            StoredEvent(self.thread_id, i, e.run_id, e.type, event_to_dict(e), created)
            for i, e in batch
        ]
        delay = 0.05
        for attempt in range(1, _ATTEMPTS + 1):
            try:
                await self._store.append_events(self.thread_id, rows)
                break
            except EventIdConflict as exc:
                self._failure = EventLogWriteError(f"another writer used ids of {self.thread_id}")
                logger.error("thread %s: %s", self.thread_id, exc)
                return
            except Exception as exc:
                if attempt == _ATTEMPTS:
                    self._failure = EventLogWriteError(f"cannot persist events: {exc}")
                    logger.exception("thread %s: giving up persisting events", self.thread_id)
                    return
                logger.warning(
                    "thread %s: persisting events failed, retrying: %s", self.thread_id, exc
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, 1.0)
        last = batch[-1][0]
        self._channel.mark_persisted(last)
        await self._bus.publish(self.thread_id, last)
