"""Two replicas sharing one database and a Redis of the test's own, which it stops and starts:
a reader on the replica that does not write gets every event exactly once, in order — by
polling the log while Redis is down, and live again, by itself, once it is back."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

from private_redis import PrivateRedis, private_redis
from runyard.protocol import StatusEvent, StatusPayload
from runyard.service import EventLog, EventReader, EventWriter
from runyard.service.bus import RedisEventBus
from runyard.storage import open_store

FAST = {"connect_timeout": 0.5, "max_reconnect_delay": 0.1}
NEVER = 3600.0
"""A poll interval no test lives to see: whatever such a reader gets, the bus woke it for."""


@dataclass
class Pair:
    """A writer on one replica, a reader of the same thread on the other."""

    writer: EventWriter
    reader: EventReader
    reader_bus: RedisEventBus
    seen: list[int] = field(default_factory=list)

    async def emit(self, count: int) -> int:
        """Store ``count`` more events; the newest id."""
        for n in range(count):
            event = StatusEvent(run_id="r", agent_id="a", payload=StatusPayload(message=str(n)))
            self.writer.emit(event)
        await self.writer.flush()
        return self.writer.last_id

    async def read_until(self, target: int) -> None:
        """Read like an event stream until ``target`` arrived (or fail after 20 s)."""
        async with asyncio.timeout(20):
            while self.reader.cursor < target:
                self.seen.extend(event.id for event in await self.reader.next())

    async def until_delivery(self, delivery: str) -> None:
        async with asyncio.timeout(20):
            while self.reader_bus.delivery != delivery:  # noqa: ASYNC110  # the bus has no event for it
                await asyncio.sleep(0.01)


@asynccontextmanager
async def replicas(db_url: str, server: PrivateRedis, poll: float) -> AsyncIterator[Pair]:
    thread = f"outage-{uuid.uuid4().hex[:8]}"
    async with AsyncExitStack() as stack:
        logs = []
        for _replica in range(2):
            store = await open_store(db_url)
            stack.push_async_callback(store.close)
            bus = RedisEventBus(server.url, poll_interval=poll, **FAST)  # type: ignore[arg-type]
            stack.push_async_callback(bus.close)
            log = EventLog(store, bus)
            stack.push_async_callback(log.close)
            logs.append(log)
        reader = await stack.enter_async_context(logs[1].reader(thread))
        writer = await stack.enter_async_context(logs[0].writer(thread))
        yield Pair(writer, reader, logs[1].bus)  # type: ignore[arg-type]


async def test_while_redis_is_down_a_reader_elsewhere_keeps_getting_events_by_polling(
    db_url: str,
) -> None:
    with private_redis() as server:
        async with replicas(db_url, server, poll=0.05) as pair:
            await pair.read_until(await pair.emit(10))  # live
            await asyncio.to_thread(server.stop)
            await pair.until_delivery("polling")
            await pair.read_until(await pair.emit(10))  # Redis down: found by polling
            await pair.read_until(await pair.emit(10))
            await asyncio.to_thread(server.start)
            await pair.until_delivery("live")
            await pair.read_until(await pair.emit(10))

    assert pair.seen == list(range(1, 41))


async def test_when_redis_returns_live_delivery_resumes_by_itself(db_url: str) -> None:
    with private_redis() as server:
        async with replicas(db_url, server, poll=NEVER) as pair:
            await pair.read_until(await pair.emit(10))
            await asyncio.to_thread(server.stop)
            await pair.until_delivery("polling")
            during = await pair.emit(10)  # while down: no wake-up can carry these
            await asyncio.to_thread(server.start)
            await pair.read_until(during)  # read once Redis is back and the thread re-subscribed
            for _ in range(3):  # and from then on woken by Redis: no poll comes in time
                await pair.read_until(await pair.emit(5))

    assert pair.seen == list(range(1, 36))
