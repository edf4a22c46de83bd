"""Fixtures for the event-bus tests: one contract, two backends (in-process and Redis)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator

import pytest
import redis
from event_bus_replicas import Replicas

from runyard.service.bus import InProcessEventBus, RedisEventBus

REDIS_URL = os.environ.get("RUNYARD_TEST_REDIS_URL", "redis://127.0.0.1:6379")


@pytest.fixture
def redis_url() -> str:
    """The test Redis; skipped when it is down, unless RUNYARD_TEST_REQUIRE_SERVICES=1."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        client.ping()
    except (redis.RedisError, OSError) as exc:
        reason = (
            f"Redis at {REDIS_URL} is not reachable ({exc}); start redis-server "
            "or point RUNYARD_TEST_REDIS_URL at one"
        )
        if os.environ.get("RUNYARD_TEST_REQUIRE_SERVICES") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    finally:
        client.close()
    return REDIS_URL


@pytest.fixture
def thread_id() -> str:
    """A thread id no other test (or concurrent test run on the same Redis) uses."""
    return f"test-{uuid.uuid4().hex}"


@pytest.fixture(params=["in-process", "redis"])
async def replicas(request: pytest.FixtureRequest) -> AsyncIterator[Replicas]:
    """The same bus twice for in-process; two independent Redis buses, like two replicas."""
    if request.param == "in-process":
        bus = InProcessEventBus()
        yield Replicas(bus, bus)
        await bus.close()
        return
    url = request.getfixturevalue("redis_url")
    publisher, subscriber = RedisEventBus(url), RedisEventBus(url)
    yield Replicas(publisher, subscriber)
    await publisher.close()
    await subscriber.close()
