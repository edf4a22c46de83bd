"""``EventReader``: one reader's way through a thread's log — stored events, then live ones.

The reader keeps a cursor (the last id it returned). Each ``next`` returns the events after it:
from this process's tail when the tail can vouch for them, else from the store. Because the
cursor only moves forward over consecutive ids, nothing is skipped and nothing returned twice,
whether the events come from the store, the tail, or a mix while a run is writing.
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
        self._stale_seen = channel.stale
        self._drained_at: int | None = None  # channel version when the store had nothing new

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
        if live:
            return live
        stale = channel.stale != self._stale_seen
        if live is not None and not stale and channel.remote_id <= self.cursor:
            return []
        if live is None and not stale and self._drained_at == channel.version:
            return []  # the store had nothing new and nothing happened since: do not ask again
        self._stale_seen = channel.stale
        version = channel.version
        stored = await self._store.read_event_json(
            channel.thread_id, after_id=self.cursor, limit=READ_BATCH
        )
        self._drained_at = version if not stored else None
        return [LiveEvent(i, text) for i, text in stored]
