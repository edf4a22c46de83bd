"""The default event bus: wake-ups within one process, no infrastructure."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from runyard.service.bus.control import ControlInboxes
from runyard.service.bus.interface import (
    ControlInbox,
    Delivery,
    EventBusClosedError,
    Subscription,
)
from runyard.service.bus.subscription import Fanout

__all__ = ["InProcessEventBus"]


class InProcessEventBus:
    """Delivers each announcement to this process's subscribers before ``publish`` returns.

    No task, no queue: a subscription holds the latest id of its thread and an ``asyncio.Event``.
    """

    def __init__(self) -> None:
        self._fanout = Fanout()
        self._inboxes = ControlInboxes()
        self._closed = False

    @property
    def delivery(self) -> Delivery:
        """Always ``live``: every publisher is in this process."""
        return "live"

    async def publish(self, thread_id: str, event_id: int) -> None:
        """Announce ``event_id`` to the thread's subscribers."""
        self._fanout.announce(thread_id, event_id)

    @asynccontextmanager
    async def subscribe(self, thread_id: str) -> AsyncIterator[Subscription]:
        """Wake-ups for ``thread_id`` while the context is open."""
        if self._closed:
            raise EventBusClosedError("the event bus was closed")
        subscription = self._fanout.add(thread_id)
        try:
            yield subscription
        finally:
            self._fanout.remove(thread_id, subscription)

    async def send_control(self, instance_id: str, message: str) -> None:
        """Put ``message`` into the inboxes of ``instance_id`` (in this process only)."""
        self._inboxes.deliver(instance_id, message)

    @asynccontextmanager
    async def control(self, instance_id: str) -> AsyncIterator[ControlInbox]:
        """The messages sent to ``instance_id`` while the context is open."""
        if self._closed:
            raise EventBusClosedError("the event bus was closed")
        inbox = self._inboxes.add(instance_id)
        try:
            yield inbox
        finally:
            self._inboxes.remove(instance_id, inbox)

    async def close(self) -> None:
        """Wake every waiter with ``EventBusClosedError``; later subscribes fail."""
        self._closed = True
        self._fanout.close()
        self._inboxes.close()
