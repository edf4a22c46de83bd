"""Waiting in the bus tests: for a condition, or like a reader for an announced id — always
for an event, bounded only so a broken bus fails instead of hanging."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from runyard.service.bus import Subscription

T = TypeVar("T")

__all__ = ["catch_up", "eventually", "within"]


async def within(awaitable: Awaitable[T]) -> T:
    return await asyncio.wait_for(awaitable, timeout=10)


async def eventually(condition: Callable[[], Awaitable[bool] | bool]) -> None:
    """Check ``condition`` (of Redis, or of the bus) until it holds; give up after ~10 s."""
    for _ in range(500):
        held = condition()
        if held if isinstance(held, bool) else await held:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the condition never held")


async def catch_up(subscription: Subscription, after: int, target: int | None = None) -> int:
    """Wait like a reader until an id above ``after`` (at least ``target``) is announced —
    wake-ups that only say "re-read the log" return ``<= after`` — and return it."""
    latest = after
    while latest < (after + 1 if target is None else target):
        latest = max(latest, await within(subscription.wait(after=after)))
    return latest
