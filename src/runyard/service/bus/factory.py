"""Choosing the event bus from configuration."""

from __future__ import annotations

from runyard.service.bus.in_process import InProcessEventBus
from runyard.service.bus.interface import EventBus

__all__ = ["open_event_bus"]


def open_event_bus(redis_url: str = "") -> EventBus:
    """Redis pub/sub when ``redis_url`` is set (``RUNYARD_REDIS_URL``), else the in-process bus.

    Nothing connects until the bus is first used; close it with ``await bus.close()``.
    """
    if not redis_url:
        return InProcessEventBus()
    from runyard.service.bus.redis_bus import RedisEventBus  # needs the [redis] extra

    return RedisEventBus(redis_url)
