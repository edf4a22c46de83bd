"""Event buses: per-thread wake-ups telling readers that the event log has grown.

The log in the database is the source of truth; a bus carries only ``(thread_id, event_id)``.
``InProcessEventBus`` serves one process; ``RedisEventBus`` (the ``[redis]`` extra) lets any
replica serve any thread. See ``interface.py`` for the reader's loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runyard.service.bus.factory import open_event_bus, start_event_bus
from runyard.service.bus.in_process import InProcessEventBus
from runyard.service.bus.interface import Delivery, EventBus, EventBusClosedError, Subscription

if TYPE_CHECKING:
    from runyard.service.bus.redis_bus import RedisEventBus

__all__ = [
    "Delivery",
    "EventBus",
    "EventBusClosedError",
    "InProcessEventBus",
    "RedisEventBus",
    "Subscription",
    "open_event_bus",
    "start_event_bus",
]


def __getattr__(name: str) -> Any:
    # RedisEventBus imports redis, an optional extra: load it only when asked for.
    if name == "RedisEventBus":
        from runyard.service.bus.redis_bus import RedisEventBus

        return RedisEventBus
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
