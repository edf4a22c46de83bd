"""``ThreadChannel``: one thread's live state in this process — its newest events and a wake-up.

The channel keeps the events its writer appended, in id order, until they are persisted and
pushed out by newer ones (``tail_size``). Readers in this process take live events from here the
moment they are appended, without waiting for the database; whatever the tail no longer holds
(or never held, when another replica writes the thread) they read from the log in the store.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
from itertools import islice

__all__ = ["LiveEvent", "ThreadChannel"]


@dataclass(frozen=True, slots=True)
class LiveEvent:
    """An event as readers send it: its id in the thread and its JSON text."""

    id: int
    json: str


class ThreadChannel:
    """The tail of one thread's log in this process, plus the wake-up its readers wait on.

    Invariant: the tail is contiguous and ends at ``last_id`` whenever it is not empty, and it
    never drops an event that is not yet persisted (``persisted_id``).
    """

    def __init__(self, thread_id: str, tail_size: int) -> None:
        self.thread_id = thread_id
        self.tail_size = tail_size
        self.tail: deque[LiveEvent] = deque()
        self.last_id = 0
        """The highest id this process knows to exist (appended here or announced by the bus)."""
        self.persisted_id = 0
        self.local_writer = False
        """True while a writer of this process appends to the thread: the tail is then current."""
        self.remote_id = 0
        """The highest id the bus announced that this process did not write itself."""
        self.stale = 0
        """Bumped when announcements may have been lost: readers re-read the store."""
        self.users = 0
        self.version = 0
        """Bumped by every ``notify``: a reader that found the store empty re-reads only after."""
        self._changed = asyncio.Event()

    @property
    def changed(self) -> asyncio.Event:
        """Set at the next change; take it *before* looking at the state, then wait on it."""
        return self._changed

    def notify(self) -> None:
        """Wake every reader waiting on ``changed``."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    def append(self, event: LiveEvent) -> None:
        """Add the writer's next event (its id is ``last_id + 1``) and wake the readers."""
        self.tail.append(event)
        self.last_id = event.id
        self._evict()
        self.notify()

    def mark_persisted(self, event_id: int) -> None:
        """Events up to ``event_id`` are in the store and may leave the tail."""
        self.persisted_id = max(self.persisted_id, event_id)
        self._evict()

    def reset(self, last_id: int) -> None:
        """Start over from the store's ``last_id`` (another process may have written since)."""
        if last_id != self.last_id:
            self.tail.clear()
        self.last_id = max(self.last_id, last_id)
        self.persisted_id = max(self.persisted_id, last_id)

    def announce(self, event_id: int) -> None:
        """The bus says the log holds events up to ``event_id``."""
        if event_id > self.last_id:
            self.remote_id = max(self.remote_id, event_id)
            self.notify()

    def mark_stale(self) -> None:
        """Announcements may have been lost (the bus reconnected): readers re-read the store."""
        self.stale += 1
        self.notify()

    def after(self, cursor: int) -> list[LiveEvent] | None:
        """The events with ``id > cursor`` if this process can vouch for all of them, else None.

        It can when the tail starts at or before ``cursor + 1``, or when a writer of this
        process owns the thread and ``cursor`` is already its newest id. An empty list means
        nothing newer is known here; ``remote_id`` may still say the store has more.
        """
        tail = self.tail
        if tail and tail[0].id <= cursor + 1:
            return list(islice(tail, cursor + 1 - tail[0].id, None))
        if self.local_writer and cursor >= self.last_id:
            return []
        return None

    def _evict(self) -> None:
        tail = self.tail
        while len(tail) > self.tail_size and tail[0].id <= self.persisted_id:
            tail.popleft()
