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

from runyard.service.event_log.channel import LiveEvent, ThreadChannel
from runyard.storage import EventLogStore

__all__ = ["EventReader"]

READ_BATCH = 2000
"""How many stored events one store read returns (a long replay is sent in such slices)."""


class EventReader:
    """Events of one thread with ``id > cursor``, in order; open it with ``EventLog.reader``."""

    def __init__(self, channel: ThreadChannel, store: EventLogStore, cursor: int) -> None:
        self._channel = channel
        self._store = store
        self.cursor = cursor
        self._read_at: tuple[int, int] | None = None
        """``(stale, last_id)`` of the channel when a store read last reached the log's end."""

    async def next(self, max_wait: float | None = None) -> list[LiveEvent]:
        """The next events after the cursor; ``[]`` when none came within ``max_wait`` seconds.

        Only the idle wait is bounded: a store read in progress is never cut short.
        """
        while True:
            changed = self._channel.changed
            events = await self._available()
            if events:
                self.cursor = events[-1].id
                return events
            try:
                async with asyncio.timeout(max_wait):
                    await changed.wait()
            except TimeoutError:
                return []

    async def _available(self) -> list[LiveEvent]:
        channel = self._channel
        live = channel.after(self.cursor)
        if live or not self._store_may_have_more():
            return live
        state = (channel.stale, channel.last_id)
        stored = await self._store.read_event_json(
            channel.thread_id, after_id=self.cursor, limit=READ_BATCH
        )
        self._read_at = state if len(stored) < READ_BATCH else None
        return [LiveEvent(i, text) for i, text in stored]

    def _store_may_have_more(self) -> bool:
        """Whether the store may hold events after the cursor that the tail does not."""
        channel, read_at = self._channel, self._read_at
        if read_at is None or read_at[0] != channel.stale:
            return True  # never read to the end, or wake-ups may have been lost since
        # Unchanged since a read that reached the end: nothing new, even if the log holds less
        # than was announced (a deleted thread), which must not be re-read in a busy loop.
        return self.cursor < channel.last_id and read_at[1] != channel.last_id
