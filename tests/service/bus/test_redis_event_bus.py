"""What only the Redis bus promises: its wire format, and surviving Redis trouble.

Waits are bounded by ``within`` only so a broken bus fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from waits import catch_up, eventually, within

from runyard.service.bus import RedisEventBus, open_event_bus
from runyard.service.bus.redis_bus import CHANNEL_PREFIX
from runyard.service.bus.subscription import LocalSubscription


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url)
    yield client
    await client.aclose()


@pytest.fixture
async def named_bus(redis_url: str) -> AsyncIterator[tuple[RedisEventBus, str]]:
    """A bus whose connections carry a unique client name, so a test can kill only them."""
    name = f"runyard-test-{uuid.uuid4().hex[:12]}"
    bus = RedisEventBus(redis_url, client_name=name)
    yield bus, name
    await bus.close()


async def subscribers(client: aioredis.Redis, thread_id: str) -> int:
    ((_channel, count),) = await client.pubsub_numsub(CHANNEL_PREFIX + thread_id)
    return int(count)


async def test_the_wire_format_is_the_id_on_the_thread_channel(
    named_bus: tuple[RedisEventBus, str], redis_client: aioredis.Redis, thread_id: str
) -> None:
    bus, _name = named_bus
    async with bus.subscribe(thread_id) as subscription:
        await redis_client.publish(f"runyard:thread:{thread_id}", "7")

        assert await within(subscription.wait(after=0)) == 7


async def test_a_malformed_message_is_ignored(
    named_bus: tuple[RedisEventBus, str], redis_client: aioredis.Redis, thread_id: str
) -> None:
    bus, _name = named_bus
    async with bus.subscribe(thread_id) as subscription:
        await redis_client.publish(CHANNEL_PREFIX + thread_id, "not-an-id")
        await redis_client.publish(CHANNEL_PREFIX + thread_id, "8")

        assert await within(subscription.wait(after=0)) == 8


async def test_leaving_the_last_subscription_unsubscribes_from_redis(
    named_bus: tuple[RedisEventBus, str], redis_client: aioredis.Redis, thread_id: str
) -> None:
    bus, _name = named_bus
    async with bus.subscribe(thread_id), bus.subscribe(thread_id):
        assert await subscribers(redis_client, thread_id) == 1

    async def unsubscribed() -> bool:
        return await subscribers(redis_client, thread_id) == 0

    await eventually(unsubscribed)


async def test_a_killed_connection_is_replaced_and_readers_told_to_re_read_the_log(
    named_bus: tuple[RedisEventBus, str],
    redis_client: aioredis.Redis,
    redis_url: str,
    thread_id: str,
) -> None:
    bus, name = named_bus
    publisher = RedisEventBus(redis_url)
    async with bus.subscribe(thread_id) as subscription:
        await publisher.publish(thread_id, 1)
        assert await within(subscription.wait(after=0)) == 1

        for client in await redis_client.client_list():
            if client["name"] == name:
                await redis_client.client_kill_filter(_id=client["id"])

        # Woken with nothing new: whatever was announced meanwhile is in the log.
        assert await within(subscription.wait(after=1)) == 1
        assert isinstance(subscription, LocalSubscription)
        await eventually(lambda: not subscription.polling)  # re-subscribed on a new connection
        await publisher.publish(thread_id, 2)
        assert await within(catch_up(subscription, after=1)) == 2
    await publisher.close()


async def test_without_redis_this_process_s_readers_are_still_woken() -> None:
    bus = RedisEventBus("redis://127.0.0.1:1", connect_timeout=0.5)
    async with bus.subscribe("t") as subscription:
        await bus.publish("t", 4)

        assert await within(subscription.wait(after=0)) == 4
    await within(bus.close())
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_a_redis_url_means_the_redis_bus() -> None:
    bus = open_event_bus("redis://127.0.0.1:6379")

    assert isinstance(bus, RedisEventBus)
    await bus.close()


async def test_an_idle_connection_is_kept_alive_by_pings(
    redis_url: str, redis_client: aioredis.Redis, thread_id: str
) -> None:
    name = f"runyard-test-{uuid.uuid4().hex[:12]}"
    # Long enough that a loaded CPU never misses a PING reply, short enough to see several.
    bus = RedisEventBus(redis_url, ping_interval=0.3, client_name=name)
    publisher = RedisEventBus(redis_url)

    async def pinged() -> bool:
        clients = await redis_client.client_list()
        return any(c["name"] == name and c["cmd"] == "ping" for c in clients)

    async with bus.subscribe(thread_id) as subscription:
        await eventually(pinged)  # the quiet connection sent a PING, and Redis saw it
        await publisher.publish(thread_id, 1)

        assert await within(subscription.wait(after=0)) == 1
    await publisher.close()
    await bus.close()
