"""What only the in-process bus promises: delivery before ``publish`` returns, one wake-up."""

from __future__ import annotations

import asyncio

from runyard.service.bus import InProcessEventBus, open_event_bus


async def test_a_slow_subscriber_wakes_once_with_the_latest_id() -> None:
    bus = InProcessEventBus()
    async with bus.subscribe("t") as subscription:
        for event_id in range(1, 1001):
            await bus.publish("t", event_id)

        assert await subscription.wait(after=0) == 1000
        waiting = asyncio.create_task(subscription.wait(after=1000))
        await asyncio.sleep(0)
        assert not waiting.done()
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
    await bus.close()


async def test_an_announcement_is_visible_as_soon_as_publish_returns() -> None:
    bus = InProcessEventBus()
    async with bus.subscribe("t") as subscription:
        waiting = asyncio.create_task(subscription.wait(after=0))
        await asyncio.sleep(0)
        await bus.publish("t", 3)
        await asyncio.sleep(0)

        assert waiting.done()
        assert waiting.result() == 3
    await bus.close()


def test_no_redis_url_means_the_in_process_bus() -> None:
    assert isinstance(open_event_bus(""), InProcessEventBus)
