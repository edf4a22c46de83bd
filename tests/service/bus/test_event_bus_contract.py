"""The contract every event bus keeps, run against the in-process bus and across two Redis buses.

Waits are bounded by ``within`` only so a broken bus fails instead of hanging; nothing asserts
how long anything takes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

import pytest
from event_bus_replicas import Replicas

from runyard.service.bus import EventBusClosedError, Subscription

T = TypeVar("T")


async def within(awaitable: Awaitable[T]) -> T:
    return await asyncio.wait_for(awaitable, timeout=10)


async def catch_up(subscription: Subscription, cursor: int, target: int) -> list[int]:
    """Wait like a reader would until ``target`` is announced; the ids each wake-up returned."""
    seen: list[int] = []
    while cursor < target:
        cursor = max(cursor, await within(subscription.wait(after=cursor)))
        seen.append(cursor)
    return seen


async def test_publish_wakes_a_subscriber(replicas: Replicas, thread_id: str) -> None:
    async with replicas.subscriber.subscribe(thread_id) as subscription:
        await replicas.publisher.publish(thread_id, 1)

        assert await within(subscription.wait(after=0)) == 1


async def test_every_subscriber_of_the_thread_wakes(replicas: Replicas, thread_id: str) -> None:
    async with (
        replicas.subscriber.subscribe(thread_id) as first,
        replicas.subscriber.subscribe(thread_id) as second,
    ):
        await replicas.publisher.publish(thread_id, 7)

        assert [await within(first.wait(0)), await within(second.wait(0))] == [7, 7]


async def test_a_slow_subscriber_only_sees_increasing_ids_up_to_the_latest(
    replicas: Replicas, thread_id: str
) -> None:
    async with replicas.subscriber.subscribe(thread_id) as subscription:
        for event_id in range(1, 51):
            await replicas.publisher.publish(thread_id, event_id)

        seen = await catch_up(subscription, cursor=0, target=50)

    assert seen == sorted(set(seen))
    assert seen[-1] == 50


async def test_an_id_at_or_below_the_cursor_does_not_wake(
    replicas: Replicas, thread_id: str
) -> None:
    async with replicas.subscriber.subscribe(thread_id) as subscription:
        await replicas.publisher.publish(thread_id, 5)
        await catch_up(subscription, cursor=0, target=5)
        await replicas.publisher.publish(thread_id, 3)
        await replicas.publisher.publish(thread_id, 5)
        await replicas.publisher.publish(thread_id, 6)

        assert await within(subscription.wait(after=5)) == 6


async def test_threads_are_isolated(replicas: Replicas, thread_id: str) -> None:
    other = thread_id + "-other"
    async with (
        replicas.subscriber.subscribe(thread_id) as mine,
        replicas.subscriber.subscribe(other) as theirs,
    ):
        await replicas.publisher.publish(other, 5)
        await replicas.publisher.publish(thread_id, 1)

        assert await within(mine.wait(after=0)) == 1
        assert await within(theirs.wait(after=0)) == 5


async def test_publishing_to_a_thread_nobody_watches_is_harmless(
    replicas: Replicas, thread_id: str
) -> None:
    await replicas.publisher.publish(thread_id, 1)

    async with replicas.subscriber.subscribe(thread_id) as subscription:
        await replicas.publisher.publish(thread_id, 2)

        assert await within(subscription.wait(after=1)) == 2


async def test_a_cancelled_reader_leaves_no_task_behind(replicas: Replicas, thread_id: str) -> None:
    subscribed = asyncio.Event()

    async def reader() -> None:
        async with replicas.subscriber.subscribe(thread_id) as subscription:
            subscribed.set()
            await subscription.wait(after=0)

    task = asyncio.create_task(reader())
    await within(subscribed.wait())
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)

    await replicas.publisher.close()
    await replicas.subscriber.close()
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_closing_wakes_waiters_with_an_error_and_refuses_new_subscribers(
    replicas: Replicas, thread_id: str
) -> None:
    async with replicas.subscriber.subscribe(thread_id) as subscription:
        waiting = asyncio.create_task(subscription.wait(after=0))
        await asyncio.sleep(0)
        await replicas.subscriber.close()

        with pytest.raises(EventBusClosedError):
            await within(waiting)

    with pytest.raises(EventBusClosedError):
        async with replicas.subscriber.subscribe(thread_id):
            pass


async def test_a_control_message_reaches_the_inbox_of_its_instance_in_order(
    replicas: Replicas, thread_id: str
) -> None:
    instance, other = f"{thread_id}-a", f"{thread_id}-b"
    async with (
        replicas.subscriber.control(instance) as inbox,
        replicas.subscriber.control(other) as elsewhere,
    ):
        await replicas.publisher.send_control(instance, "cancel r1")
        await replicas.publisher.send_control(instance, "cancel r2")
        await replicas.publisher.send_control(other, "cancel r3")

        received = [await within(inbox.get()), await within(inbox.get())]
        assert await within(elsewhere.get()) == "cancel r3"

    assert received == ["cancel r1", "cancel r2"]


async def test_a_control_message_to_nobody_is_dropped(replicas: Replicas, thread_id: str) -> None:
    await replicas.publisher.send_control(f"{thread_id}-gone", "cancel r1")
    async with replicas.subscriber.control(f"{thread_id}-gone") as inbox:
        await replicas.publisher.send_control(f"{thread_id}-gone", "cancel r2")

        assert await within(inbox.get()) == "cancel r2"


async def test_closing_the_bus_ends_a_waiting_inbox(replicas: Replicas, thread_id: str) -> None:
    async with replicas.subscriber.control(thread_id) as inbox:
        waiting = asyncio.create_task(inbox.get())
        await asyncio.sleep(0)
        await replicas.subscriber.close()

        with pytest.raises(EventBusClosedError):
            await within(waiting)
