"""Choosing the event bus from configuration."""

from __future__ import annotations

from typing import TYPE_CHECKING

from runyard.service.bus.in_process import InProcessEventBus
from runyard.service.bus.interface import EventBus

if TYPE_CHECKING:
    from runyard.service.bus.redis_bus import RedisEventBus

__all__ = ["open_event_bus", "start_event_bus"]


def open_event_bus(redis_url: str = "", *, poll_seconds: float = 1.0) -> EventBus:
    """Redis pub/sub when ``redis_url`` is set (``RUNYARD_REDIS_URL``), else the in-process bus.

    While Redis is unreachable, subscribers look at the log every ``poll_seconds``
    (``RUNYARD_BUS_POLL_SECONDS``). Nothing connects until the bus is first used; close it with
    ``await bus.close()``.
    """
    return _redis_bus(redis_url, poll_seconds) if redis_url else InProcessEventBus()


async def start_event_bus(
    redis_url: str = "", *, poll_seconds: float = 1.0, wait: float = 2.0
) -> EventBus:
    """``open_event_bus``, connected at once: a server's way, so that its ``delivery`` says from
    the start whether Redis answered (within ``wait`` seconds). An unreachable Redis does not
    fail it: the bus polls and keeps reconnecting in the background."""
    if not redis_url:
        return InProcessEventBus()
    bus = _redis_bus(redis_url, poll_seconds)
    await bus.connect(wait)
    return bus


def _redis_bus(redis_url: str, poll_seconds: float) -> RedisEventBus:
    from runyard.service.bus.redis_bus import RedisEventBus  # needs the [redis] extra

    return RedisEventBus(redis_url, poll_interval=poll_seconds)
