"""``EventReader``: one reader's way through a thread's log — stored events, then live ones.

Invariant: a reader returns the ids ``cursor + 1, cursor + 2, …`` exactly once each, in order,
and only events the store already holds. Everything it returns comes from the store, or from
this process's tail, which holds only stored events (see ``channel``): both give a contiguous
run of ids starting right after the cursor, and the cursor moves to the last id returned.

It reads the store when the tail does not hold ``cursor + 1`` and either the channel knows of
stored ids beyond the cursor (``last_id``) or the reader has not read the store to its end
since the bus last said wake-ups may have been lost (``stale``; a new reader never has).
Otherwise it has seen everything stored and waits for the channel to change.
"""

from __future__ import annotations

import asyncio
import logging

from runyard.service.event_log.channel import LiveEvent, ThreadChannel
from runyard.storage import EventLogStore, connection_failed

__all__ = ["EventReader"]

logger = logging.getLogger(__name__)

_READ_ATTEMPTS = 3

READ_BATCH = 250
"""How many stored events one store read returns (a long replay is sent in such slices, the
loop free for other streams between them: a slice of 2,000 held it 30 to 60 ms)."""


class EventReader:
    """Events of one thread with ``id > cursor``, in order; open it with ``EventLog.reader``."""

    def __init__(self, channel: ThreadChannel, store: EventLogStore, cursor: int) -> None:
        self._channel = channel
        self._store = store
        self.cursor = cursor
        self._read_at: tuple[int, int] | None = None
        """``(stale, last_id)`` of the channel when a store read last reached the log's end."""
        self._woken: asyncio.Future[None] | None = None
        """The channel's wake-up this reader holds, reused until it fires (a change, or this
        reader's timeout; the channel drops fired ones it still lists)."""
        self._waiting: asyncio.Future[None] | None = None
        self._deadline = 0.0
        """When the current bounded wait ends (``loop.time()``)."""
        self._timer: asyncio.TimerHandle | None = None
        self._timed_out = False

    async def next(self, max_wait: float | None = None) -> list[LiveEvent]:
        """The next events after the cursor; ``[]`` when none came within ``max_wait`` seconds.

        Only the idle wait is bounded: a store read in progress is never cut short.
        """
        channel = self._channel
        while True:
            events = channel.after(self.cursor)
            if not events and self._store_may_have_more():
                woken = self._wake_up()  # before the read: a change during it is not missed
                events = await self._read_store()
            else:
                woken = self._wake_up()  # nothing was awaited since the state was looked at
            if events:
                self.cursor = events[-1].id
                return events
            if not await self._wait(woken, max_wait):
                return []

    def close(self) -> None:
        """Drop the timer of the last wait (``EventLog.reader`` calls it on the way out)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _wake_up(self) -> asyncio.Future[None]:
        if self._woken is None or self._woken.done():
            self._woken = self._channel.wake_up()
        return self._woken

    async def _wait(self, woken: asyncio.Future[None], max_wait: float | None) -> bool:
        """Wait for ``woken``; False when ``max_wait`` passed first.

        A stream waits once per event batch: one timer per reader, moved lazily (when it fires
        before the current wait's deadline it re-arms for it), costs less than scheduling and
        cancelling one per wait.
        """
        if max_wait is None:
            await woken
            return True
        if max_wait <= 0:
            return woken.done()
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + max_wait
        if self._timer is not None and self._timer.when() > self._deadline:
            self._timer.cancel()
            self._timer = None
        if self._timer is None:
            self._timer = loop.call_at(self._deadline, self._expire)
        self._waiting, self._timed_out = woken, False
        try:
            await woken
        finally:
            self._waiting = None
        timed_out, self._timed_out = self._timed_out, False
        return not timed_out

    def _expire(self) -> None:
        self._timer = None
        waiting = self._waiting
        if waiting is None or waiting.done():
            return  # not waiting: the next wait arms the timer again
        loop = asyncio.get_running_loop()
        if loop.time() < self._deadline:
            self._timer = loop.call_at(self._deadline, self._expire)
            return
        self._timed_out = True
        waiting.set_result(None)

    async def _read_store(self) -> list[LiveEvent]:
        channel = self._channel
        state = (channel.stale, channel.last_id)
        stored = await self._read_event_json(channel.thread_id)
        # A local store answers without suspending: without this a long replay (reads, frames,
        # sends, read again) would hold the loop, and every other stream, until it is done.
        await asyncio.sleep(0)
        self._read_at = state if len(stored) < READ_BATCH else None
        return [LiveEvent(i, text) for i, text in stored]

    async def _read_event_json(self, thread_id: str) -> list[tuple[int, str]]:
        """The store's events after the cursor. A read cut off by a lost connection (the
        database restarted, its connections were dropped) is read again on another, a few
        times: a read changes nothing. The store itself waits out a database that is away."""
        attempt = 1
        while True:
            try:
                return await self._store.read_event_json(
                    thread_id, after_id=self.cursor, limit=READ_BATCH
                )
            except Exception as exc:
                if attempt == _READ_ATTEMPTS or not connection_failed(exc):
                    raise
                logger.info("thread %s: a read lost its connection; reading again", thread_id)
            await asyncio.sleep(0.05 * attempt)
            attempt += 1

    def _store_may_have_more(self) -> bool:
        """Whether the store may hold events after the cursor that the tail does not."""
        channel, read_at = self._channel, self._read_at
        if read_at is None or read_at[0] != channel.stale:
            return True  # never read to the end, or wake-ups may have been lost since
        # Unchanged since a read that reached the end: nothing new, even if the log holds less
        # than was announced (a deleted thread), which must not be re-read in a busy loop.
        return self.cursor < channel.last_id and read_at[1] != channel.last_id
