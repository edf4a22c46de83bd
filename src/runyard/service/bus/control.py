"""Control inboxes: the messages sent to one process (by instance id), such as "cancel run R".

Both buses deliver through them: the in-process bus directly, the Redis bus for what arrives on
``runyard:control:<instance id>``. A message is a hint, delivered at most once: whatever it asks
for is recorded in the database first, where its receiver also looks on its heartbeat, so a lost
message only delays it. An inbox keeps the latest ``_KEPT`` messages, so a stuck reader cannot
make it grow without bound.
"""

from __future__ import annotations

import asyncio
from collections import deque

from runyard.service.bus.interface import EventBusClosedError

__all__ = ["ControlInboxes", "LocalInbox"]

_KEPT = 1024


class LocalInbox:
    """One receiver's queue of control messages."""

    __slots__ = ("_closed", "_messages", "_ready")

    def __init__(self) -> None:
        self._messages: deque[str] = deque(maxlen=_KEPT)
        self._ready = asyncio.Event()
        self._closed = False

    def put(self, message: str) -> None:
        """Queue ``message`` for the reader."""
        self._messages.append(message)
        self._ready.set()

    def close(self) -> None:
        """Wake the reader for good: ``get`` raises from now on."""
        self._closed = True
        self._ready.set()

    async def get(self) -> str:
        """See ``ControlInbox.get``."""
        while not self._messages and not self._closed:
            self._ready.clear()
            await self._ready.wait()
        if self._closed:
            raise EventBusClosedError("the event bus was closed")
        return self._messages.popleft()


class ControlInboxes:
    """The open inboxes of this process, by the instance id they receive for."""

    def __init__(self) -> None:
        self._by_instance: dict[str, set[LocalInbox]] = {}

    def add(self, instance_id: str) -> LocalInbox:
        """A new inbox for the messages sent to ``instance_id``."""
        inbox = LocalInbox()
        self._by_instance.setdefault(instance_id, set()).add(inbox)
        return inbox

    def remove(self, instance_id: str, inbox: LocalInbox) -> bool:
        """Drop an inbox; True when it was the instance's last one."""
        inboxes = self._by_instance.get(instance_id)
        if inboxes is None:
            return False
        inboxes.discard(inbox)
        if inboxes:
            return False
        del self._by_instance[instance_id]
        return True

    def instances(self) -> frozenset[str]:
        """The instance ids with at least one inbox here."""
        return frozenset(self._by_instance)

    def deliver(self, instance_id: str, message: str) -> None:
        """Put ``message`` into every inbox of ``instance_id`` (none here: it is dropped)."""
        for inbox in self._by_instance.get(instance_id, ()):
            inbox.put(message)

    def close(self) -> None:
        """Close every inbox and forget them."""
        for inboxes in self._by_instance.values():
            for inbox in inboxes:
                inbox.close()
        self._by_instance.clear()
