"""An event stream on a replica that does not drive the run reads the log from PostgreSQL (a
cluster of the test's own, never the shared one): it rides out a restart of the database (every
connection it held is gone), and when the database stays away longer than the store waits for
it, the stream ends whole — no exception, no half response — and a reconnect from the last id
misses nothing. A read cut off mid-statement by a lost connection is read again."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

import pytest

from private_postgres import PrivatePostgres, private_postgres
from runyard.http.shutdown import Shutdown
from runyard.http.sse import RETRY, event_frames
from runyard.protocol import StatusEvent, StatusPayload
from runyard.service import EventLog
from runyard.service.bus import InProcessEventBus
from runyard.storage import Store, open_store
from runyard.storage.sql import engine

THREAD = "blip"


@pytest.fixture(scope="module")
def own_postgres() -> Iterator[PrivatePostgres]:
    with private_postgres() as server:
        yield server


def status(n: int) -> StatusEvent:
    return StatusEvent(run_id="run_1", agent_id="agent-001", payload=StatusPayload(message=str(n)))


async def next_frame(frames: AsyncIterator[bytes]) -> bytes:
    async with asyncio.timeout(30):
        return await anext(frames)


async def test_a_stream_rides_out_a_database_restart_and_ends_whole_when_it_stays_away(
    own_postgres: PrivatePostgres,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = InProcessEventBus()
    stores = [await open_store(own_postgres.url), await open_store(own_postgres.url)]
    driving = EventLog(stores[0], bus)
    streaming = EventLog(stores[1], bus)  # another replica: it reads the log
    frames = event_frames(streaming, THREAD, 0, 60, Shutdown())
    try:
        assert await next_frame(frames) == RETRY
        async with driving.writer(THREAD) as writer:
            writer.emit(status(1))
        assert b"id: 1\n" in await next_frame(frames)

        await asyncio.to_thread(own_postgres.restart)  # every pooled connection is dead now
        async with driving.writer(THREAD) as writer:
            writer.emit(status(2))
        assert b"id: 2\n" in await next_frame(frames)

        monkeypatch.setattr(engine, "RECONNECT_SECONDS", 0.3)
        await asyncio.to_thread(own_postgres.stop)
        await bus.publish(THREAD, 3)  # something to read while the database is away
        with caplog.at_level(logging.WARNING), pytest.raises(StopAsyncIteration):
            await next_frame(frames)
        assert "the stream ends, the database is away" in caplog.text
    finally:
        await frames.aclose()
        await asyncio.to_thread(own_postgres.start)
        for log in (driving, streaming):
            await log.close()
        for store in stores:
            await store.close()

    # The client's reconnect from the last id it has: nothing missed, nothing twice.
    store = await open_store(own_postgres.url)
    again = EventLog(store, InProcessEventBus())
    try:
        async with again.reader(THREAD, after=2) as reader:
            assert await reader.next(max_wait=0) == []
        async with again.reader(THREAD, after=0) as reader:
            assert [e.id for e in await reader.next(max_wait=0)] == [1, 2]
    finally:
        await again.close()
        await store.close()


class CutReads:
    """A store whose next ``read_event_json`` calls fail as a connection cut mid-read does."""

    def __init__(self, inner: Store, failures: list[Exception]) -> None:
        self.inner = inner
        self.failures = failures
        self.reads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def read_event_json(self, thread_id: str, **kwargs: Any) -> list[tuple[int, str]]:
        self.reads += 1
        if self.failures:
            raise self.failures.pop(0)
        return await self.inner.read_event_json(thread_id, **kwargs)


@pytest.mark.parametrize(
    ("failures", "reads", "raised"),
    [
        ([OSError("connection reset"), OSError("connection reset")], 3, None),
        ([OSError("reset")] * 3, 3, OSError),  # a few attempts, then the error goes up
        ([ValueError("not a lost connection")], 1, ValueError),
    ],
)
async def test_a_read_cut_off_by_a_lost_connection_is_read_again_a_few_times(
    failures: list[Exception], reads: int, raised: type[Exception] | None
) -> None:
    inner = await open_store("memory://")
    bus = InProcessEventBus()
    writing = EventLog(inner, bus)
    store = CutReads(inner, failures)
    reading = EventLog(cast(Store, store), bus)  # another replica: it reads the store
    try:
        async with writing.writer(THREAD) as writer:
            writer.emit(status(1))
        async with reading.reader(THREAD, after=0) as reader:
            if raised is None:
                assert [e.id for e in await reader.next(max_wait=0)] == [1]
            else:
                with pytest.raises(raised):
                    await reader.next(max_wait=0)
    finally:
        for log in (writing, reading):
            await log.close()
        await inner.close()
    assert store.reads == reads
