"""The event log: per-thread ids that only increase, everything persisted, replay then live with
no gap and no duplicate — from this process's tail, from the store, or both while a run writes.
(What a reader may see before the store holds it: test_event_log_durability.py.)
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from runyard.protocol import StatusEvent, StatusPayload, event_to_dict, parse_event
from runyard.service import EventLog, EventLogWriteError, EventReader
from runyard.service.bus import InProcessEventBus, Subscription
from runyard.service.event_log import ThreadChannel
from runyard.storage import Store, StoredEvent


def status(n: int) -> StatusEvent:
    return StatusEvent(run_id="run_1", agent_id="agent-001", payload=StatusPayload(message=str(n)))


async def drain(reader: EventReader, until: int) -> list[int]:
    """Every id the reader returns up to ``until`` (bounded so a bug fails, not hangs)."""
    seen: list[int] = []
    async with asyncio.timeout(20):
        while reader.cursor < until:
            seen.extend(e.id for e in await reader.next())
    return seen


async def test_ids_start_at_one_and_increase_by_one(event_log: EventLog) -> None:
    async with event_log.writer("t1") as writer:
        ids = [writer.emit(status(n)) for n in range(5)]

    assert ids == [1, 2, 3, 4, 5]


async def test_every_event_is_persisted_with_its_id_and_json(
    event_log: EventLog, store: Store
) -> None:
    async with event_log.writer("t1") as writer:
        for n in range(30):
            writer.emit(status(n))

    stored = await store.read_events("t1")
    assert [e.id for e in stored] == list(range(1, 31))
    assert [parse_event(e.data) for e in stored] == [status(n) for n in range(30)]


async def test_a_new_writer_continues_after_the_stored_ids(event_log: EventLog) -> None:
    async with event_log.writer("t1") as writer:
        writer.emit(status(1))
    async with event_log.writer("t1") as writer:
        assert writer.emit(status(2)) == 2


async def test_flush_returns_once_the_events_are_in_the_store(
    event_log: EventLog, store: Store
) -> None:
    async with event_log.writer("t1") as writer:
        writer.emit(status(1))
        writer.emit(status(2))
        await writer.flush()
        assert await store.last_event_id("t1") == 2


async def test_replay_returns_exactly_the_events_after_the_cursor(event_log: EventLog) -> None:
    async with event_log.writer("t1") as writer:
        for n in range(40):
            writer.emit(status(n))

    async with event_log.reader("t1", after=17) as reader:
        assert await drain(reader, until=40) == list(range(18, 41))


async def test_readers_joining_at_any_point_of_a_live_run_see_no_gap_and_no_duplicate(
    event_log: EventLog,
) -> None:
    total, readers = 600, 6
    emitted = 0
    progress = asyncio.Condition()

    async def read_from(cursor: int) -> list[int]:
        async with event_log.reader("t1", after=cursor) as reader:
            return await drain(reader, until=total)

    async def write() -> None:
        nonlocal emitted
        async with event_log.writer("t1") as writer:
            for n in range(total):
                emitted = writer.emit(status(n))
                async with progress:
                    progress.notify_all()
                if n % 7 == 0:
                    await asyncio.sleep(0)  # let the persister and readers interleave

    async def join_later(delay_events: int) -> list[int]:
        async with progress:
            await progress.wait_for(lambda: emitted >= delay_events)
        return await read_from(max(0, delay_events - 50))

    writer = asyncio.create_task(write())
    joins = [join_later(k * total // readers) for k in range(readers)]
    results = await asyncio.gather(*joins)
    await writer

    for k, seen in enumerate(results):
        start = max(0, k * total // readers - 50)
        assert seen == list(range(start + 1, total + 1))


async def test_a_reader_on_another_replica_catches_up_from_the_store(store: Store) -> None:
    bus = InProcessEventBus()  # stands for the shared bus; each log is one replica
    here, there = EventLog(store, bus), EventLog(store, bus)
    try:
        async with there.reader("t1", after=0) as reader:
            async with here.writer("t1") as writer:
                for n in range(25):
                    writer.emit(status(n))
            assert await drain(reader, until=25) == list(range(1, 26))
    finally:
        await here.close()
        await there.close()
        await bus.close()


class _CountedWakeUps(InProcessEventBus):
    """The in-process bus, counting how often a subscription's ``wait`` returns."""

    def __init__(self) -> None:
        super().__init__()
        self.wake_ups = 0

    @asynccontextmanager
    async def subscribe(self, thread_id: str) -> AsyncIterator[Subscription]:
        async with super().subscribe(thread_id) as subscription:
            counted = self

            class Counted:
                async def wait(self, after: int) -> int:
                    latest = await subscription.wait(after)
                    counted.wake_ups += 1
                    return latest

                def heard(self, event_id: int) -> None:
                    subscription.heard(event_id)

            yield Counted()


async def test_a_writers_own_batches_do_not_wake_the_threads_bus_listener(store: Store) -> None:
    # The reader has them from the channel; the bus's announcement of them is for other replicas.
    bus = _CountedWakeUps()
    log = EventLog(store, bus)
    try:
        async with log.reader("t1", after=0) as reader, log.writer("t1") as writer:
            for n in range(5):
                writer.emit(status(n))
                await writer.flush()
            seen = await drain(reader, until=5)
            for _ in range(10):
                await asyncio.sleep(0)  # whatever the announcements woke has run
    finally:
        await log.close()
        await bus.close()

    assert seen == [1, 2, 3, 4, 5]
    assert bus.wake_ups == 0


async def test_read_returns_what_is_stored_after_the_cursor(event_log: EventLog) -> None:
    async with event_log.writer("t1") as writer:
        for n in range(5):
            writer.emit(status(n))
        await writer.flush()
        assert [e.id for e in await event_log.read("t1", after=2)] == [3, 4, 5]


async def test_an_idle_reader_returns_nothing_after_its_wait(event_log: EventLog) -> None:
    async with event_log.reader("t1", after=0) as reader:
        assert await reader.next(max_wait=0.01) == []


async def test_each_wait_has_its_own_bound_and_an_event_ends_it(event_log: EventLog) -> None:
    async with event_log.reader("t1", after=0) as reader, event_log.writer("t1") as writer:
        loop = asyncio.get_running_loop()
        assert await reader.next(max_wait=0.05) == []
        started = loop.time()
        assert await reader.next(max_wait=0.01) == []  # shorter than the one before
        assert loop.time() - started < 0.04
        loop.call_later(0.02, writer.emit, status(1))
        started = loop.time()
        assert [e.id for e in await reader.next(max_wait=5)] == [1]
        assert loop.time() - started < 1


async def test_a_thread_nobody_reads_any_more_is_freed_without_the_collector(
    event_log: EventLog,
) -> None:
    """Its bus listener, cancelled with the last reader, held its channel (and the tail of
    events) in a reference cycle that only a garbage collection freed, thread after thread."""
    async with event_log.writer("t1") as writer:
        writer.emit(status(1))
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable is kept, to look at
    try:
        async with event_log.reader("t1", after=0) as reader:
            assert [e.id for e in await reader.next(max_wait=5)] == [1]
            listeners = [t for t in asyncio.all_tasks() if t.get_name() == "runyard-events-t1"]
        # As the log leaves it, cancelled with its last reader: nobody asks for its result
        # (which would drop the CancelledError and break the cycle).
        await asyncio.wait(listeners)
        del reader, listeners  # this test's own references
        gc.collect()
        cycles = [o for o in gc.garbage if isinstance(o, ThreadChannel)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert cycles == []


def stored_status(n: int) -> StoredEvent:
    """``status(n)`` as another transaction stores it with id ``n`` (a run's start, its opening)."""
    return StoredEvent("t1", n, "run_1", "status", event_to_dict(status(n)), 1)


@pytest.mark.parametrize(
    "known",
    [
        0,  # the log's end the start read: the events are right above it
        # A reader's listener read the store's newest id after the start stored its opening:
        # the writer opens on that id, above the events it is about to adopt.
        2,
    ],
)
async def test_a_writer_adopts_what_another_transaction_stored_above_the_log_end(
    event_log: EventLog, store: Store, known: int
) -> None:
    opening = [stored_status(1), stored_status(2)]
    async with event_log.reader("t1") as reader:
        await store.append_events("t1", opening)
        async with event_log.writer("t1", known=known) as writer:
            await writer.adopt(opening)
            assert writer.emit(status(3)) == 3
        assert await drain(reader, until=3) == [1, 2, 3]
    assert [e.id for e in await store.read_events("t1")] == [1, 2, 3]


async def test_a_writer_refuses_to_adopt_events_below_what_is_stored_since(
    event_log: EventLog, store: Store
) -> None:
    await store.append_events("t1", [stored_status(n) for n in (1, 2, 3)])
    async with event_log.writer("t1", known=3) as writer:
        with pytest.raises(EventLogWriteError, match="out of turn"):
            await writer.adopt([stored_status(1), stored_status(2)])
