"""``Flag``: what ``asyncio.Event`` does (set, clear, wait) for the flags every run makes.

An ``asyncio.Event`` allocates a 760-byte deque for its waiters when it is made. A run and its
event stream make about ten such flags (its stream buffer's two, its thread writer's two, its
stream's subscription, ...); most never have more than one waiter, and many never one. A
``Flag`` makes its list of waiters with its first waiter. Where a flag is public API (a run's
control, which tools see as ``abort_signal``) it stays an ``asyncio.Event``.
"""

from __future__ import annotations

import asyncio

__all__ = ["Flag"]


class Flag:
    """Set or clear; ``wait`` returns once it is set (at once when it is)."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        """Set it and wake every task waiting for it."""
        if self._set:
            return
        self._set = True
        for waiter in self._waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> None:
        if self._set:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            self._waiters.remove(waiter)
