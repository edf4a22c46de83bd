"""Two replicas sharing one database and Redis: a reader on one replica sees every event the
other writes, in order, with no gap — woken by Redis, reading the log from the store."""

from __future__ import annotations

import asyncio
import os

import pytest
import redis

from runyard.protocol import StatusEvent, StatusPayload
from runyard.service import EventLog
from runyard.service.bus import RedisEventBus
from runyard.storage import Store, open_store

REDIS_URL = os.environ.get("RUNYARD_TEST_REDIS_URL", "redis://127.0.0.1:6379")


@pytest.fixture
def redis_url() -> str:
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        if os.environ.get("RUNYARD_TEST_REQUIRE_SERVICES") == "1":
            pytest.fail(f"Redis at {REDIS_URL} is not reachable: {exc}")
        pytest.skip(f"Redis at {REDIS_URL} is not reachable: {exc}")
    finally:
        client.close()
    return REDIS_URL


async def test_a_reader_on_another_replica_follows_a_live_run_through_redis(
    db_url: str, redis_url: str
) -> None:
    thread = f"replicas-{os.getpid()}-{id(db_url)}"
    stores: list[Store] = [await open_store(db_url), await open_store(db_url)]
    buses = [RedisEventBus(redis_url), RedisEventBus(redis_url)]
    writer_side, reader_side = EventLog(stores[0], buses[0]), EventLog(stores[1], buses[1])
    try:
        async with reader_side.reader(thread, after=0) as reader:
            async with writer_side.writer(thread) as writer:
                for n in range(300):
                    writer.emit(
                        StatusEvent(
                            run_id="run_1",
                            agent_id="agent-001",
                            payload=StatusPayload(message=str(n)),
                        )
                    )
                    if n % 25 == 0:
                        await asyncio.sleep(0.005)
            seen: list[int] = []
            async with asyncio.timeout(20):
                while reader.cursor < 300:
                    seen.extend(e.id for e in await reader.next())
    finally:
        for log in (writer_side, reader_side):
            await log.close()
        for bus in buses:
            await bus.close()
        for store in stores:
            await store.close()

    assert seen == list(range(1, 301))
