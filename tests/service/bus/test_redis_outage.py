"""The Redis bus through Redis outages, on a Redis server of the test's own that it stops and
starts: subscriptions poll while it is down and go live again by themselves when it is back;
publishing never waits for it, and what it refused is sent once it answers."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator

import pytest
from waits import catch_up, eventually, within

from private_redis import PrivateRedis, private_redis
from runyard.service.bus import RedisEventBus
from runyard.service.bus.subscription import LocalSubscription

POLL = 0.05
FAST = {"connect_timeout": 0.5, "max_reconnect_delay": 0.1, "poll_interval": POLL}
"""Quick to notice and to reconnect, so the tests wait little; nothing depends on the values."""


@pytest.fixture
def server() -> Iterator[PrivateRedis]:
    with private_redis() as redis_server:
        yield redis_server


@pytest.fixture
async def buses(server: PrivateRedis) -> AsyncIterator[tuple[RedisEventBus, RedisEventBus]]:
    """A subscribing and a publishing bus on the private Redis, like two replicas."""
    subscriber, publisher = RedisEventBus(server.url, **FAST), RedisEventBus(server.url, **FAST)
    yield subscriber, publisher
    await within(subscriber.close())
    await within(publisher.close())


async def test_redis_down_at_start_the_bus_polls_then_goes_live_when_it_answers(
    server: PrivateRedis, buses: tuple[RedisEventBus, RedisEventBus]
) -> None:
    subscriber, publisher = buses
    server.stop()

    assert await subscriber.connect(wait=5) == "polling"
    async with subscriber.subscribe("t") as subscription:
        assert isinstance(subscription, LocalSubscription)
        assert subscription.polling
        assert await within(subscription.wait(after=0)) == 0  # a poll: look at the log
        await asyncio.to_thread(server.start)
        await eventually(lambda: subscriber.delivery == "live" and not subscription.polling)
        await publisher.publish("t", 1)

        assert await catch_up(subscription, after=0) == 1


async def test_a_redis_restart_sends_subscriptions_polling_and_back_live_by_themselves(
    server: PrivateRedis, buses: tuple[RedisEventBus, RedisEventBus]
) -> None:
    subscriber, publisher = buses
    async with subscriber.subscribe("t") as subscription:
        assert isinstance(subscription, LocalSubscription)
        await publisher.publish("t", 1)
        assert await catch_up(subscription, after=0) == 1

        await asyncio.to_thread(server.stop)
        assert await within(subscription.wait(after=1)) == 1  # woken at once to re-read
        await eventually(lambda: subscriber.delivery == "polling" and subscription.polling)
        await within(publisher.publish("t", 2))  # returns at once, Redis or not
        assert await within(subscription.wait(after=1)) == 1  # polls meanwhile

        await asyncio.to_thread(server.start)
        await eventually(lambda: subscriber.delivery == "live" and not subscription.polling)
        await publisher.publish("t", 3)
        assert await catch_up(subscription, after=1, target=3) == 3


async def test_wake_ups_redis_refused_are_sent_again_merged_with_newer_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bus = RedisEventBus("redis://127.0.0.1:1", **FAST)
    attempts: list[dict[str, int]] = []
    answers: asyncio.Queue[bool] = asyncio.Queue()

    async def send(batch: dict[str, int]) -> bool:  # Redis, as the test decides it answers
        attempts.append(dict(batch))
        return await answers.get()

    monkeypatch.setattr(bus, "_send", send)
    await bus.publish("t", 1)
    await bus.publish("u", 5)  # no yield between the two: one batch
    answers.put_nowait(False)
    await eventually(lambda: len(attempts) == 2)  # refused, then tried again after a backoff
    await within(bus.publish("t", 3))  # newer than the one held back
    answers.put_nowait(False)
    answers.put_nowait(True)
    await eventually(lambda: len(attempts) == 3 and answers.empty())
    await within(bus.close())

    assert attempts == [{"t": 1, "u": 5}, {"t": 1, "u": 5}, {"t": 3, "u": 5}]


async def test_publishing_to_a_dead_redis_warns_once_and_closing_gives_up(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = RedisEventBus("redis://127.0.0.1:1", **FAST)
    with caplog.at_level(logging.WARNING, "runyard.service.bus"):
        for event_id in range(1, 201):
            await within(bus.publish("t", event_id))
            await asyncio.sleep(0)  # let the publisher try between events, as a run would
        await eventually(lambda: "cannot publish" in caplog.text)
        await within(bus.close())

    warnings = [r for r in caplog.records if "cannot publish" in r.getMessage()]
    assert len(warnings) == 1
    assert asyncio.all_tasks() == {asyncio.current_task()}
