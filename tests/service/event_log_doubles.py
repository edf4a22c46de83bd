"""Stores and buses for the event-log tests that let a test decide when a write lands and which
wake-ups arrive: a real store behind a gate, and a bus between replicas that can lose messages."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from runyard.service.bus import Subscription
from runyard.service.bus.subscription import Fanout
from runyard.storage import Store, StoredEvent

GATE_SECONDS = 20


class GatedStore:
    """A real store whose ``append_events`` each wait for a ``release()`` before they run.

    Everything else goes straight to ``inner``. ``fail_next`` makes released appends raise
    instead (after storing, with ``after_commit``: a commit whose answer was lost). A gate
    nobody opens gives way after ``GATE_SECONDS``, so a failing test ends instead of hanging.
    """

    def __init__(self, inner: Store, *, gated: bool = True) -> None:
        self.inner = inner
        self.gated = gated
        self.waiting: deque[asyncio.Future[None]] = deque()
        self.arrived = asyncio.Event()
        self.failures: deque[tuple[Exception, bool]] = deque()
        self.committed_id = 0
        """The highest event id an append has committed (of any thread)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def fail_next(self, error: Exception, *, after_commit: bool = False) -> None:
        self.failures.append((error, after_commit))

    async def release(self) -> None:
        """Let the oldest append run, once one waits."""
        await self.until_waiting()
        self.waiting.popleft().set_result(None)

    def open(self) -> None:
        """From now on appends run at once (and so does every one waiting)."""
        self.gated = False
        while self.waiting:
            self.waiting.popleft().set_result(None)

    async def append_events(self, thread_id: str, events: Sequence[StoredEvent]) -> None:
        if self.gated:
            gate = asyncio.get_running_loop().create_future()
            self.waiting.append(gate)
            self.arrived.set()
            try:
                await asyncio.wait_for(asyncio.shield(gate), GATE_SECONDS)
            except TimeoutError:
                self.waiting.remove(gate)
        error, after_commit = self.failures.popleft() if self.failures else (None, True)
        if after_commit:
            await self.inner.append_events(thread_id, events)
            self.committed_id = max([self.committed_id, *(e.id for e in events)])
        if error is not None:
            raise error

    async def until_waiting(self, count: int = 1) -> None:
        """Return once ``count`` appends wait at the gate."""
        async with asyncio.timeout(20):
            while len(self.waiting) < count:
                self.arrived.clear()
                await self.arrived.wait()


class LossyNetwork:
    """The bus between replicas, as the Redis bus behaves: a replica's own subscribers hear its
    announcements at once; the others only when the test delivers them, which it may instead
    lose — and then, as a real bus does once it notices, mark the thread stale."""

    def __init__(self) -> None:
        self.replicas: list[Fanout] = []
        self.in_flight: deque[tuple[Fanout, str, int]] = deque()
        self.lost_since_stale = False

    def bus(self) -> LossyBus:
        fanout = Fanout()
        self.replicas.append(fanout)
        return LossyBus(self, fanout)

    def deliver(self) -> None:
        fanout, thread_id, event_id = self.in_flight.popleft()
        fanout.announce(thread_id, event_id)

    def lose(self) -> None:
        self.in_flight.popleft()
        self.lost_since_stale = True

    def reconnect(self, thread_id: str) -> None:
        """Every replica's bus reconnects: its subscribers re-read the log."""
        for fanout in self.replicas:
            fanout.mark_stale(thread_id)
        self.lost_since_stale = False


class LossyBus:
    """One replica's end of a ``LossyNetwork`` (an ``EventBus``)."""

    def __init__(self, network: LossyNetwork, fanout: Fanout) -> None:
        self.network = network
        self.fanout = fanout
        self.on_publish: Callable[[str, int], None] | None = None

    async def publish(self, thread_id: str, event_id: int) -> None:
        if self.on_publish is not None:
            self.on_publish(thread_id, event_id)
        self.fanout.announce(thread_id, event_id)
        for other in self.network.replicas:
            if other is not self.fanout:
                self.network.in_flight.append((other, thread_id, event_id))

    @asynccontextmanager
    async def subscribe(self, thread_id: str) -> AsyncIterator[Subscription]:
        subscription = self.fanout.add(thread_id)
        try:
            yield subscription
        finally:
            self.fanout.remove(thread_id, subscription)

    async def close(self) -> None:
        self.fanout.close()
