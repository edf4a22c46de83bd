"""Durable before visible: no reader sees an event before the store holds it, so a store that
stalls or fails shows readers nothing of its batch, and a process that dies leaves behind no id
a client saw — its successor numbers on from the store (DESIGN.md §8)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from event_log_doubles import GatedStore

from runyard.protocol import StatusEvent, StatusPayload, parse_event
from runyard.service import EventLog, EventLogWriteError, EventReader
from runyard.service.bus import InProcessEventBus
from runyard.storage import Store, StoredEvent


def status(text: str) -> StatusEvent:
    return StatusEvent(run_id="run_1", agent_id="agent-001", payload=StatusPayload(message=text))


async def texts(reader: EventReader, until: int) -> list[tuple[int, str]]:
    """``(id, message)`` of every event the reader returns up to id ``until`` (bounded)."""
    seen: list[tuple[int, str]] = []
    async with asyncio.timeout(20):
        while reader.cursor < until:
            for event in await reader.next():
                parsed = parse_event(event.json)
                assert isinstance(parsed, StatusEvent)
                seen.append((event.id, parsed.payload.message))
    return seen


@pytest.fixture
async def gated(store: Store) -> GatedStore:
    return GatedStore(store)


@pytest.fixture
async def log(gated: GatedStore) -> AsyncIterator[EventLog]:
    bus = InProcessEventBus()
    opened = EventLog(gated, bus)  # type: ignore[arg-type]
    yield opened
    await opened.close()
    await bus.close()


async def test_a_reader_sees_a_batch_only_once_the_store_holds_it(
    log: EventLog, gated: GatedStore, store: Store
) -> None:
    async with log.reader("t1") as reader, log.writer("t1") as writer:
        writer.emit(status("a"))
        writer.emit(status("b"))
        await gated.until_waiting()
        assert await reader.next(max_wait=0) == []
        await gated.release()
        await writer.flush()
        assert [e.id for e in await store.read_events("t1")] == [1, 2]
        assert await texts(reader, until=2) == [(1, "a"), (2, "b")]

        writer.emit(status("c"))
        await gated.until_waiting()
        assert await reader.next(max_wait=0) == []
        gated.open()
        await writer.flush()
        assert await texts(reader, until=3) == [(3, "c")]


async def test_events_the_store_refuses_are_never_seen(
    log: EventLog, gated: GatedStore, store: Store
) -> None:
    for _ in range(5):  # every attempt the writer makes
        gated.fail_next(OSError("disk full"))
    async with log.reader("t1") as reader, log.writer("t1") as writer:
        writer.emit(status("a"))
        await gated.until_waiting()
        writer.emit(status("b"))  # queued behind the failing insert, then dropped
        gated.open()
        with pytest.raises(EventLogWriteError, match="disk full"):
            await writer.flush()
        with pytest.raises(EventLogWriteError):
            writer.emit(status("c"))
        assert await reader.next(max_wait=0) == []
    assert await store.read_events("t1") == []


async def test_a_failed_insert_is_retried_and_its_events_seen_once(
    log: EventLog, gated: GatedStore
) -> None:
    gated.open()
    gated.fail_next(ConnectionResetError("connection reset"))
    async with log.reader("t1") as reader, log.writer("t1") as writer:
        writer.emit(status("a"))
        writer.emit(status("b"))
        await writer.flush()
        assert await texts(reader, until=2) == [(1, "a"), (2, "b")]
        assert await reader.next(max_wait=0) == []


async def test_an_insert_that_committed_before_its_answer_was_lost_is_kept(
    log: EventLog, gated: GatedStore, store: Store
) -> None:
    gated.open()
    gated.fail_next(ConnectionResetError("connection reset"), after_commit=True)
    async with log.reader("t1") as reader, log.writer("t1") as writer:
        writer.emit(status("a"))
        writer.emit(status("b"))
        await writer.flush()
        writer.emit(status("c"))
        await writer.flush()
        assert await texts(reader, until=3) == [(1, "a"), (2, "b"), (3, "c")]
    assert [e.id for e in await store.read_events("t1")] == [1, 2, 3]


async def test_ids_another_writer_stored_first_are_not_taken_over(
    log: EventLog, gated: GatedStore, store: Store
) -> None:
    gated.open()
    async with log.reader("t1") as reader, log.writer("t1") as writer:
        # Another process got to the same ids first (a lease it should not have had).
        await store.append_events(
            "t1", [StoredEvent("t1", 1, "run_2", "status", status("theirs").model_dump(), 0)]
        )
        await log.bus.publish("t1", 1)
        writer.emit(status("ours"))
        with pytest.raises(EventLogWriteError, match="another writer"):
            await writer.flush()
        assert await texts(reader, until=1) == [(1, "theirs")]
        assert await reader.next(max_wait=0) == []


async def test_after_a_crash_the_next_process_reuses_no_id_a_client_saw(
    log: EventLog, gated: GatedStore, store: Store
) -> None:
    async with log.reader("t1") as client, log.writer("t1") as doomed:
        doomed.emit(status("a"))
        doomed.emit(status("b"))
        await gated.release()
        seen = await texts(client, until=2)
        doomed.emit(status("c"))  # its insert never completes: the process dies first
        await gated.until_waiting()
        assert await client.next(max_wait=0) == []

        bus = InProcessEventBus()
        restarted = EventLog(store, bus)
        try:
            async with restarted.writer("t1") as writer:
                writer.emit(status("server restarted"))
            async with restarted.reader("t1", after=client.cursor) as resumed:
                seen += await texts(resumed, until=3)
        finally:
            await restarted.close()
            await bus.close()
        gated.open()  # the dead process's insert now finds its id taken, as it should

    assert seen == [(1, "a"), (2, "b"), (3, "server restarted")]


class UnreachableBus(InProcessEventBus):
    async def publish(self, thread_id: str, event_id: int) -> None:
        raise RuntimeError("the bus is closed")


async def test_stored_events_are_visible_here_even_when_the_bus_cannot_announce_them(
    store: Store,
) -> None:
    bus = UnreachableBus()
    log = EventLog(store, bus)
    try:
        async with log.reader("t1") as reader, log.writer("t1") as writer:
            writer.emit(status("a"))
            await writer.flush()
            assert await texts(reader, until=1) == [(1, "a")]
    finally:
        await log.close()
        await bus.close()


async def test_a_writer_whose_run_was_taken_over_cannot_write_after_the_new_owner(
    log: EventLog, gated: GatedStore, store: Store
) -> None:
    gated.open()
    taker = EventLog(store, InProcessEventBus())
    async with log.writer("t1") as stale:
        stale.emit(status("before the takeover"))
        await stale.flush()
        # Another process takes the run over and logs its end while this one still runs.
        async with taker.writer("t1") as new_owner:
            new_owner.emit(status("run-finish of the taker"))
            await new_owner.flush()
        stale.emit(status("late"))
        with pytest.raises(EventLogWriteError, match="another writer"):
            await stale.flush()
    await taker.close()
    stored = [(e.id, e.data["payload"]["message"]) for e in await store.read_events("t1")]
    assert stored == [(1, "before the takeover"), (2, "run-finish of the taker")]
