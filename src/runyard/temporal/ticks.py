"""``with_ticks``: a stream's items, with a ``None`` whenever a while passes without one, so the
consumer can heartbeat while the stream is quiet (a long tool call, a slow model)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TypeVar

__all__ = ["with_ticks"]

T = TypeVar("T")


async def with_ticks(items: AsyncIterator[T], seconds: float) -> AsyncGenerator[T | None, None]:
    """``items``, and ``None`` each time ``seconds`` pass without an item. The read in flight
    is never cancelled by a tick (only when the consumer stops)."""
    reading: asyncio.Future[T] | None = None
    try:
        while True:
            if reading is None:
                reading = asyncio.ensure_future(anext(items))
            done, _ = await asyncio.wait({reading}, timeout=seconds)
            if not done:
                yield None
                continue
            try:
                item = reading.result()
            except StopAsyncIteration:
                return
            reading = None
            yield item
    finally:
        if reading is not None:
            reading.cancel()
