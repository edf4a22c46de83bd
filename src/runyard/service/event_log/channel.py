"""``ThreadChannel``: one thread's live state in this process — its newest stored events and a wake-up.

Gap-free replay rests on three facts (DESIGN.md §8, durable before visible):

1. The tail holds only events the store already holds, contiguous and in id order: a writer
   appends a batch only after the store has committed it.
2. ``last_id`` never exceeds what the store holds: it grows when a writer here appends, when the
   bus announces an id, or when a writer opens on the store's newest id.
3. Every event stored after a reader subscribed either raises ``last_id`` or bumps ``stale``
   (the bus may lose a wake-up only when it then says so; the listener then raises ``last_id``
   to the store's newest id, read after that, or bumps ``stale`` when it cannot read it).

So a reader whose cursor is at least ``last_id``, and that has read the store since the last
``stale``, has seen everything there is; otherwise the tail or the store has what follows its
cursor, and either source gives exactly the events ``cursor + 1, cursor + 2, …``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import islice

__all__ = ["LiveEvent", "ThreadChannel"]

_PRUNE_AT = 64


@dataclass(frozen=True, slots=True)
class LiveEvent:
    """An event as readers send it: its id in the thread and its JSON text."""

    id: int
    json: str
    _sse: bytes | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def sse(self) -> bytes:
        """The event's SSE frame, ``id: <id>\\ndata: <json>\\n\\n`` as UTF-8.

        Built at the first use and kept: every stream of the thread sends the very same bytes,
        so an event is formatted and encoded once, not once per listener.
        """
        sse = self._sse
        if sse is None:
            sse = f"id: {self.id}\ndata: {self.json}\n\n".encode()
            object.__setattr__(self, "_sse", sse)  # a cache: equality and hash ignore it
        return sse


class ThreadChannel:
    """The newest stored events of one thread in this process, plus the wake-up readers wait on."""

    def __init__(self, thread_id: str, tail_size: int) -> None:
        self.thread_id = thread_id
        self.tail_size = tail_size
        self.tail: deque[LiveEvent] = deque()
        self.last_id = 0
        """The highest id this process knows the store holds."""
        self.stale = 0
        """Bumped when announcements may have been lost: readers re-read the store."""
        self.users = 0
        self.heard: Callable[[int], None] | None = None
        """Told of the ids this process's writer appends (the bus listener's
        ``Subscription.heard``), so their announcement on the bus does not wake the listener."""
        self._waiters: list[asyncio.Future[None]] = []
        self._prune_at = _PRUNE_AT

    def wake_up(self) -> asyncio.Future[None]:
        """A future resolved at the next change; take it *before* looking at the state, then
        await it. (A bare future, not an ``asyncio.Event``: every batch wakes every reader of
        the thread, and a reader's timeout is its own, see ``EventReader``.)"""
        waiters = self._waiters
        if len(waiters) >= self._prune_at:
            # Readers whose waits timed out took fresh futures: drop the resolved ones, so a
            # thread with no events for hours does not collect one per reader per timeout.
            waiters[:] = [waiter for waiter in waiters if not waiter.done()]
            self._prune_at = max(_PRUNE_AT, 2 * len(waiters))
        waiter = asyncio.get_running_loop().create_future()
        waiters.append(waiter)
        return waiter

    def notify(self) -> None:
        """Wake every reader waiting on a ``wake_up`` future."""
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():  # a reader that timed out, or was cancelled
                waiter.set_result(None)

    def append(self, events: Iterable[LiveEvent]) -> None:
        """Add events the store has just committed, in id order, and wake the readers."""
        tail = self.tail
        for event in events:
            if tail and tail[-1].id + 1 != event.id:
                tail.clear()  # keep the tail contiguous; the store has what lies between
            tail.append(event)
            self.last_id = max(self.last_id, event.id)
        while len(tail) > self.tail_size:
            tail.popleft()
        if self.heard is not None:
            self.heard(self.last_id)
        self.notify()

    def announce(self, event_id: int) -> None:
        """The store holds events up to ``event_id`` (the bus said so, or a writer found it)."""
        if event_id > self.last_id:
            self.last_id = event_id
            self.notify()

    def mark_stale(self) -> None:
        """Announcements may have been lost and the store's newest id is unknown: readers
        re-read the store."""
        self.stale += 1
        self.notify()

    def after(self, cursor: int) -> list[LiveEvent]:
        """The tail's events with ``id > cursor`` when the tail holds ``cursor + 1``, else ``[]``."""
        tail = self.tail
        if not tail or not tail[0].id <= cursor + 1 <= tail[-1].id:
            return []
        # From the newest end: a live reader wants the last event or few, and skipping the
        # rest of a full tail from the oldest end walked up to ``tail_size`` events per read.
        events = list(islice(reversed(tail), tail[-1].id - cursor))
        events.reverse()
        return events
