"""Local fan-out: the subscriptions of this process, by thread, each holding one integer.

Both buses deliver through it: the in-process bus directly, the Redis bus for what arrives from
Redis (and for its own publishes). A subscription remembers only the highest id announced, so
memory stays constant however slow its reader is.

A subscription is *live* (woken only by announcements) or *polling*: while wake-ups from other
processes cannot arrive (Redis unreachable, or its channel not confirmed yet), ``wait`` also
returns every ``poll_seconds`` as if announcements had been lost, so its reader looks at the log.
Either change of mode wakes the reader once, to re-read what it may have missed::

    polling ──channel confirmed──▶ live ──link lost──▶ polling      (each arrow: stale)
"""

from __future__ import annotations

import asyncio

from runyard.runtime.flag import Flag
from runyard.service.bus.interface import EventBusClosedError

__all__ = ["Fanout", "LocalSubscription"]


class LocalSubscription:
    """One reader's view of one thread: the latest announced id, a wake-up flag and its mode."""

    __slots__ = ("_closed", "_latest", "_poll_seconds", "_stale", "_wakeup")

    def __init__(self, poll_seconds: float | None = None) -> None:
        self._latest = 0
        self._stale = False
        self._closed = False
        self._poll_seconds = poll_seconds
        self._wakeup = Flag()

    @property
    def polling(self) -> bool:
        """Whether ``wait`` returns every ``poll_seconds`` (announcements cannot arrive)."""
        return self._poll_seconds is not None

    def announce(self, event_id: int) -> None:
        """The thread has events up to ``event_id`` (older announcements are ignored)."""
        if event_id > self._latest:
            self._latest = event_id
            self._wakeup.set()

    def heard(self, event_id: int) -> None:
        """See ``Subscription.heard``: raise the latest id without waking the reader."""
        if event_id > self._latest:
            self._latest = event_id

    def mark_stale(self) -> None:
        """Announcements may have been lost: the next ``wait`` returns at once."""
        self._stale = True
        self._wakeup.set()

    def clear_stale(self) -> None:
        """Forget a staleness mark; only safe before the reader has read the log."""
        self._stale = False

    def go_live(self) -> None:
        """Announcements arrive from now on; the reader re-reads once what came before."""
        self._poll_seconds = None
        self.mark_stale()

    def go_polling(self, poll_seconds: float) -> None:
        """Announcements stopped arriving: re-read now, then every ``poll_seconds``."""
        self._poll_seconds = poll_seconds
        self.mark_stale()

    def close(self) -> None:
        """Wake the reader for good: ``wait`` raises from now on."""
        self._closed = True
        self._wakeup.set()

    async def wait(self, after: int) -> int:
        """See ``Subscription.wait``."""
        while self._latest <= after and not self._stale and not self._closed:
            self._wakeup.clear()
            if self._poll_seconds is None:  # live: no timer to arm and cancel at every wake-up
                await self._wakeup.wait()
                continue
            try:
                async with asyncio.timeout(self._poll_seconds):
                    await self._wakeup.wait()
            except TimeoutError:
                break  # polling: whatever was announced meanwhile may be in the log only
        if self._closed:
            raise EventBusClosedError("the event bus was closed")
        self._stale = False
        return self._latest


class Fanout:
    """The live subscriptions of this process, grouped by thread."""

    def __init__(self) -> None:
        self._by_thread: dict[str, set[LocalSubscription]] = {}

    def add(self, thread_id: str, poll_seconds: float | None = None) -> LocalSubscription:
        """A new subscription to ``thread_id``, polling every ``poll_seconds`` unless None."""
        subscription = LocalSubscription(poll_seconds)
        self._by_thread.setdefault(thread_id, set()).add(subscription)
        return subscription

    def remove(self, thread_id: str, subscription: LocalSubscription) -> bool:
        """Drop a subscription; True when it was the thread's last one."""
        subscriptions = self._by_thread.get(thread_id)
        if subscriptions is None:
            return False
        subscriptions.discard(subscription)
        if subscriptions:
            return False
        del self._by_thread[thread_id]
        return True

    def threads(self) -> frozenset[str]:
        """The threads that have at least one subscription."""
        return frozenset(self._by_thread)

    def announce(self, thread_id: str, event_id: int) -> None:
        """Tell every subscription of the thread about ``event_id``."""
        for subscription in self._by_thread.get(thread_id, ()):
            subscription.announce(event_id)

    def mark_stale(self, thread_id: str) -> None:
        """Tell every subscription of the thread to re-read the log."""
        for subscription in self._by_thread.get(thread_id, ()):
            subscription.mark_stale()

    def go_live(self, thread_id: str) -> None:
        """The thread's announcements arrive again: its subscriptions re-read once, then wait."""
        for subscription in self._by_thread.get(thread_id, ()):
            subscription.go_live()

    def go_polling(self, poll_seconds: float) -> None:
        """No announcement arrives any more: every subscription re-reads now and then polls."""
        for subscriptions in self._by_thread.values():
            for subscription in subscriptions:
                subscription.go_polling(poll_seconds)

    def close(self) -> None:
        """Close every subscription and forget them."""
        for subscriptions in self._by_thread.values():
            for subscription in subscriptions:
                subscription.close()
        self._by_thread.clear()
