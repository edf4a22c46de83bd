"""What an event bus is: a wake-up channel per thread, never a carrier of events.

The thread's event log in the database is the source of truth (DESIGN.md §8). A writer stores
events, then ``publish(thread_id, last_id)``; a reader subscribes, replays the log past its
cursor, and after every wake-up reads the log again::

    async with bus.subscribe(thread_id) as subscription:
        cursor = await send_events_after(cursor)          # replay
        while True:
            await subscription.wait(after=cursor)
            cursor = await send_events_after(cursor)      # live

Subscribing before the replay closes the gap between the two: an event stored after the replay
read has an id above the cursor, so ``wait`` returns at once.

While announcements from other processes cannot arrive (Redis unreachable), the bus's
``delivery`` is ``"polling"`` and ``wait`` returns every poll interval as if announcements had
been lost: the reader looks at the log, so events keep flowing, a little later, and none is
lost. When they can arrive again ``wait`` returns once more to re-read, then live delivery goes on.

A bus also carries *control messages* to one process, named by its instance id (a cancel sent to
a replica that does not drive the run). Like a wake-up, a control message is a hint delivered at
most once: the request is in the database first, and its receiver also looks there.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Literal, Protocol

__all__ = ["ControlInbox", "Delivery", "EventBus", "EventBusClosedError", "Subscription"]

Delivery = Literal["live", "polling"]
"""How subscribers learn of other processes' events: woken by announcements (``live``), or by
looking at the log every poll interval because announcements cannot arrive (``polling``)."""


class EventBusClosedError(RuntimeError):
    """The bus was closed: no more wake-ups will come."""


class Subscription(Protocol):
    """One reader's wake-ups for one thread."""

    async def wait(self, after: int) -> int:
        """Return once the thread may have events with an id above ``after``.

        That is: an id above ``after`` was announced, or announcements may have been lost (the
        bus reconnected, or it cannot receive them and a poll interval passed). Returns the highest id announced so far, which can be ``<= after`` in
        the second case; either way the caller re-reads the log from its cursor. Only the
        latest id is kept, so a slow reader never builds up a backlog.
        Raises ``EventBusClosedError`` once the bus is closed.
        """
        ...

    def heard(self, event_id: int) -> None:
        """The reader has the thread's events up to ``event_id`` already (this process stored
        them): an announcement of them need not wake it, nor one of an older id."""
        ...


class ControlInbox(Protocol):
    """The control messages sent to one process."""

    async def get(self) -> str:
        """The next message, in the order it arrived here.

        Raises ``EventBusClosedError`` once the bus is closed.
        """
        ...


class EventBus(Protocol):
    """Announces per-thread event ids to every subscriber of the thread, in any process."""

    async def publish(self, thread_id: str, event_id: int) -> None:
        """Announce that the thread's log now holds events up to ``event_id``.

        Never raises for a transport failure: a wake-up may be lost, an event cannot be.
        """
        ...

    @property
    def delivery(self) -> Delivery:
        """``polling`` while announcements from other processes cannot arrive, else ``live``."""
        ...

    def subscribe(self, thread_id: str) -> AbstractAsyncContextManager[Subscription]:
        """Receive the thread's wake-ups while the context is open; leaving it cleans up."""
        ...

    async def close(self) -> None:
        """Stop every background task and wake every waiter with ``EventBusClosedError``."""
        ...

    async def send_control(self, instance_id: str, message: str) -> None:
        """Send ``message`` to the process whose instance id is ``instance_id``, wherever it runs.

        At most once, and never raises for a transport failure: record what the message asks
        for in the database first.
        """
        ...

    def control(self, instance_id: str) -> AbstractAsyncContextManager[ControlInbox]:
        """Receive the messages sent to ``instance_id`` while the context is open."""
        ...
