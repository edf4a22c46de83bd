"""``Flag``: asyncio.Event's set / clear / wait, with its waiters made only when one waits."""

from __future__ import annotations

import asyncio
import sys

from runyard.runtime.flag import Flag


async def test_wait_returns_at_once_when_set_and_waits_when_clear() -> None:
    flag = Flag()
    assert not flag.is_set()
    flag.set()
    assert flag.is_set()
    await flag.wait()  # set: no waiting
    flag.clear()
    waiting = asyncio.create_task(flag.wait())
    await asyncio.sleep(0)
    assert not waiting.done()
    flag.set()
    await waiting


async def test_set_wakes_every_waiter_even_if_cleared_before_they_run() -> None:
    flag = Flag()
    waiters = [asyncio.create_task(flag.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    flag.set()
    flag.clear()  # as asyncio.Event: a waiter woken by the set returns all the same
    await asyncio.gather(*waiters)
    assert not flag.is_set()


async def test_a_cancelled_waiter_leaves_nothing_behind() -> None:
    flag = Flag()
    first = asyncio.create_task(flag.wait())
    second = asyncio.create_task(flag.wait())
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    assert first.cancelled()
    flag.set()
    await second
    assert flag._waiters == []


def test_a_flag_nobody_waited_on_is_smaller_than_an_asyncio_event() -> None:
    event = asyncio.Event()
    event_size = (
        sys.getsizeof(event) + sys.getsizeof(event.__dict__) + sys.getsizeof(event._waiters)
    )
    assert sys.getsizeof(Flag()) < event_size / 10
