"""The subscription state machine: live (woken by announcements only) or polling (also woken
every poll interval, as if announcements were lost), each change waking the reader once.

    polling ──channel confirmed──▶ live ──link lost──▶ polling

Waits are bounded by ``within`` only so a broken subscription fails instead of hanging.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

import pytest

from runyard.service.bus import EventBusClosedError
from runyard.service.bus.subscription import Fanout, LocalSubscription

T = TypeVar("T")
POLL = 0.01


async def within(awaitable: Awaitable[T]) -> T:
    return await asyncio.wait_for(awaitable, timeout=10)


async def still_waiting(task: asyncio.Task[int]) -> bool:
    """Whether ``task`` is still blocked once everything runnable has run."""
    for _ in range(10):
        await asyncio.sleep(0)
    return not task.done()


async def test_a_live_subscription_waits_for_an_announcement() -> None:
    subscription = LocalSubscription()
    waiting = asyncio.create_task(subscription.wait(after=0))

    assert await still_waiting(waiting)
    subscription.announce(3)
    assert await within(waiting) == 3


async def test_what_the_reader_heard_already_wakes_it_neither_then_nor_when_announced() -> None:
    subscription = LocalSubscription()
    waiting = asyncio.create_task(subscription.wait(after=0))
    assert await still_waiting(waiting)

    subscription.heard(5)  # this process's writer stored up to 5: the reader has them
    subscription.announce(5)  # ... and the bus brings its announcement back
    subscription.announce(4)
    assert await still_waiting(waiting)
    subscription.announce(6)  # another process stored 6
    assert await within(waiting) == 6


async def test_a_polling_subscription_returns_every_interval_with_nothing_new() -> None:
    subscription = LocalSubscription(poll_seconds=POLL)

    assert subscription.polling
    # Twice in a row, with no announcement: each return means "look at the log".
    assert await within(subscription.wait(after=0)) == 0
    assert await within(subscription.wait(after=0)) == 0


async def test_a_polling_subscription_still_returns_an_announcement_at_once() -> None:
    subscription = LocalSubscription(poll_seconds=3600)
    subscription.announce(5)

    assert await within(subscription.wait(after=0)) == 5


async def test_going_polling_wakes_a_waiting_reader_at_once_then_it_polls() -> None:
    subscription = LocalSubscription()
    waiting = asyncio.create_task(subscription.wait(after=2))
    assert await still_waiting(waiting)

    subscription.go_polling(POLL)

    assert await within(waiting) == 0  # re-read now: announcements may be lost from here
    assert subscription.polling
    assert await within(subscription.wait(after=2)) == 0  # and again after an interval


async def test_going_live_wakes_the_reader_once_then_only_announcements_do() -> None:
    subscription = LocalSubscription(poll_seconds=3600)  # an interval that never passes here
    waiting = asyncio.create_task(subscription.wait(after=2))
    assert await still_waiting(waiting)

    subscription.go_live()

    assert await within(waiting) == 0  # re-read what was announced while polling
    assert not subscription.polling
    waiting = asyncio.create_task(subscription.wait(after=2))
    assert await still_waiting(waiting)
    subscription.announce(4)
    assert await within(waiting) == 4


async def test_closing_a_polling_subscription_raises_rather_than_polls() -> None:
    subscription = LocalSubscription(poll_seconds=3600)
    waiting = asyncio.create_task(subscription.wait(after=0))
    assert await still_waiting(waiting)

    subscription.close()

    with pytest.raises(EventBusClosedError):
        await within(waiting)


async def test_the_fanout_sends_every_thread_polling_and_brings_back_one_at_a_time() -> None:
    fanout = Fanout()
    first, second = fanout.add("t1"), fanout.add("t2")

    fanout.go_polling(POLL)
    assert (first.polling, second.polling) == (True, True)
    fanout.go_live("t1")

    assert (first.polling, second.polling) == (False, True)
    # Both were told to re-read (on the way down; t1 again on the way back).
    assert await within(first.wait(after=0)) == 0
    assert await within(second.wait(after=0)) == 0


async def test_a_subscription_added_while_polling_starts_polling() -> None:
    fanout = Fanout()

    assert fanout.add("t1", poll_seconds=POLL).polling
    assert not fanout.add("t2").polling
