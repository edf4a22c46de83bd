"""``EventLog``: persist, publish and replay the events of every thread (DESIGN.md §8).

The store holds the log and is the source of truth; the bus only wakes readers on other
replicas. Within one process a ``ThreadChannel`` per thread carries each batch the writer has
stored to its readers, without a store read per reader. Nothing is visible before it is stored.
A channel lives while a writer or a reader uses it; its bus subscription (one per thread, not
per reader) lives as long. When the bus says wake-ups may have been lost — it reconnected, or
it cannot receive them and polls — that subscription's listener reads the store's newest id
once for all the thread's readers (one indexed read), and they read the store only if it grew.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from runyard.observability import Metrics
from runyard.redaction import SecretRedactor
from runyard.runtime.flag import Flag
from runyard.service.bus import EventBus, EventBusClosedError
from runyard.service.event_log.channel import LiveEvent, ThreadChannel
from runyard.service.event_log.reader import READ_BATCH, EventReader
from runyard.service.event_log.writer import EventWriter
from runyard.storage import EventLogStore, StoredEvent

_Row = TypeVar("_Row")

__all__ = ["EventLog"]

logger = logging.getLogger(__name__)


@dataclass
class _Entry:
    channel: ThreadChannel
    write_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listener: asyncio.Task[None] | None = None
    listening: Flag = field(default_factory=Flag)


class EventLog:
    """Per-thread event ids that only increase; every event stored (batched), then published.

    ``tail_size`` is how many stored events each active thread keeps in memory for readers
    that are a little behind. ``redactor`` blanks secrets in every event before it is stored or
    seen (default: the built-in credential shapes only; a server passes its own, which knows
    its secret values too).
    """

    def __init__(
        self,
        store: EventLogStore,
        bus: EventBus,
        *,
        tail_size: int = 1024,
        redactor: SecretRedactor | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        self.bus = bus
        self.redactor = redactor or SecretRedactor()
        self.metrics = metrics or Metrics()
        """Where the writers' lag (emitted → stored and visible) is measured."""
        self._tail_size = tail_size
        self._entries: dict[str, _Entry] = {}
        self._stopping: set[asyncio.Task[None]] = set()

    @asynccontextmanager
    async def writer(
        self, thread_id: str, *, known: int | None = None
    ) -> AsyncIterator[EventWriter]:
        """The thread's single writer in this process; leaving the block persists everything.

        A second ``writer`` for the same thread waits until the first is closed. ``known`` is
        the thread's newest stored id when the caller read it already (a run's start does):
        the writer numbers on from it, or from a newer one this process stored since, without
        reading the store.
        """
        entry = self._acquire(thread_id)
        try:
            async with entry.write_lock:
                last_id = (
                    await self.store.last_event_id(thread_id)
                    if known is None
                    else max(known, entry.channel.last_id)
                )
                entry.channel.announce(last_id)
                writer = EventWriter(
                    entry.channel, self.store, self.bus, last_id + 1, self.redactor, self.metrics
                )
                try:
                    yield writer
                finally:
                    await writer.close()
        finally:
            self._release(thread_id, entry)

    @asynccontextmanager
    async def reader(self, thread_id: str, after: int = 0) -> AsyncIterator[EventReader]:
        """Events of the thread with ``id > after``: first what is stored, then live ones."""
        entry = self._acquire(thread_id)
        try:
            if entry.listener is None:
                entry.listener = asyncio.create_task(
                    self._listen(entry.channel, entry.listening), name=f"runyard-events-{thread_id}"
                )
            # Subscribed before the first read: nothing announced after it can be missed.
            await entry.listening.wait()
            reader = EventReader(entry.channel, self.store, after)
            try:
                yield reader
            finally:
                reader.close()
        finally:
            self._release(thread_id, entry)

    async def read_stored(self, thread_id: str, after: int = 0) -> list[StoredEvent]:
        """Every persisted event after ``after``, read in slices."""

        async def batch(cursor: int) -> list[StoredEvent]:
            return await self.store.read_events(thread_id, after_id=cursor, limit=READ_BATCH)

        return await _in_slices(batch, after, lambda e: e.id)

    async def read(self, thread_id: str, after: int = 0) -> list[LiveEvent]:
        """Every event after ``after`` as readers send it (everything visible is stored)."""

        async def batch(cursor: int) -> list[tuple[int, str]]:
            return await self.store.read_event_json(thread_id, after_id=cursor, limit=READ_BATCH)

        return [LiveEvent(i, text) for i, text in await _in_slices(batch, after, lambda r: r[0])]

    async def close(self) -> None:
        """Stop every bus listener (writers are closed by their owners)."""
        for entry in list(self._entries.values()):
            await self._stop_listening(entry)
        self._entries.clear()
        await asyncio.gather(*self._stopping, return_exceptions=True)

    def _acquire(self, thread_id: str) -> _Entry:
        entry = self._entries.get(thread_id)
        if entry is None:
            entry = _Entry(ThreadChannel(thread_id, self._tail_size))
            self._entries[thread_id] = entry
        entry.channel.users += 1
        return entry

    def _release(self, thread_id: str, entry: _Entry) -> None:
        entry.channel.users -= 1
        if entry.channel.users == 0 and self._entries.get(thread_id) is entry:
            del self._entries[thread_id]
            if entry.listener is not None:
                entry.listener.cancel()
                self._stopping.add(entry.listener)
                entry.listener.add_done_callback(self._stopping.discard)

    async def _stop_listening(self, entry: _Entry) -> None:
        if entry.listener is not None:
            entry.listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await entry.listener

    async def _listen(self, channel: ThreadChannel, listening: Flag) -> None:
        # Not given the entry: a cancelled task keeps its CancelledError, whose traceback keeps
        # this frame, and through the entry the frame would keep the task: a cycle per thread
        # (with the channel's tail) that only the collector freed.
        try:
            async with self.bus.subscribe(channel.thread_id) as subscription:
                # What a writer here appends, the channel has: its announcement wakes nobody.
                channel.heard = subscription.heard
                listening.set()
                seen = 0
                while True:
                    latest = await subscription.wait(after=seen)
                    if latest <= seen:
                        await self._catch_up(channel)
                    else:
                        channel.announce(latest)
                        seen = latest
        except EventBusClosedError:
            channel.mark_stale()
        finally:
            channel.heard = None
            listening.set()

    async def _catch_up(self, channel: ThreadChannel) -> None:
        """Wake-ups may have been lost: announce what the store holds (read after the bus said
        so, it covers every event the lost wake-ups were about)."""
        try:
            channel.announce(await self.store.last_event_id(channel.thread_id))
        except Exception as exc:
            # Each reader then reads the store itself and reports the failure to its client; a
            # warning here would repeat every poll interval of a database outage.
            logger.debug("thread %s: cannot read the newest event id: %s", channel.thread_id, exc)
            channel.mark_stale()


async def _in_slices(
    read: Callable[[int], Awaitable[list[_Row]]], after: int, row_id: Callable[[_Row], int]
) -> list[_Row]:
    """Everything ``read`` returns after ``after``, asked for ``READ_BATCH`` rows at a time."""
    rows: list[_Row] = []
    while True:
        batch = await read(after)
        rows.extend(batch)
        if len(batch) < READ_BATCH:
            return rows
        after = row_id(batch[-1])
