"""Real SSE clients that keep a record of every event id they see, per thread.

A ``Follower`` reads one thread's stream over as many connections as it takes, each resuming
with ``Last-Event-ID`` = the last id it received, as a browser's EventSource does; it may
reconnect to any replica. ``Delivery`` compares what it saw with the thread's log and counts
events lost, duplicated and reordered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from replicas import IDENTITY

Event = dict[str, Any]
WITHIN = 60.0
"""Seconds any one wait for an event may take."""


def frames(buffer: str) -> tuple[list[tuple[int, Event]], str]:
    """The complete event frames at the start of ``buffer`` (id, data) and what is left."""
    found = []
    while "\n\n" in buffer:
        raw, buffer = buffer.split("\n\n", 1)
        fields = dict(line.partition(":")[::2] for line in raw.split("\n") if line)
        if "id" in fields and "data" in fields:
            found.append((int(fields["id"].strip()), json.loads(fields["data"].strip())))
    return found, buffer


@dataclass
class Follower:
    """One client of one thread's events; ``received`` holds every (id, event) in arrival order."""

    thread: str
    received: list[tuple[int, Event]] = field(default_factory=list)
    arrivals: list[float] = field(default_factory=list)
    """When each event of ``received`` arrived (``time.monotonic()``)."""
    connections: int = 0
    cut: int = 0
    """Connections that ended mid-response (a transport error: the server went away or broke
    the stream off), not by the server ending the stream whole or the client hanging up."""
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    @property
    def last_id(self) -> int:
        return self.received[-1][0] if self.received else 0

    async def follow(
        self,
        base_url: str,
        *,
        take: int | None = None,
        until: str | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        """Connect to ``base_url`` and record events until the connection ends, the task is
        cancelled, (with ``take``) that many events arrived or (with ``until``) that run's
        ``run-finish`` arrived; then hang up."""
        headers = {**IDENTITY, "Last-Event-ID": str(self.last_id)} if self.received else IDENTITY
        self.connections += 1
        url = f"{base_url}/v1/events/{self.thread}"
        async with contextlib.AsyncExitStack() as stack:
            if client is None:
                client = await stack.enter_async_context(httpx.AsyncClient(timeout=None))
            try:
                async with client.stream("GET", url, headers=headers, timeout=None) as response:
                    response.raise_for_status()
                    await self._read(response, take, until)
            except httpx.TransportError:
                self.cut += 1

    async def _read(self, response: httpx.Response, take: int | None, until: str | None) -> None:
        buffer, taken = "", 0
        async for chunk in response.aiter_text():
            found, buffer = frames(buffer + chunk)
            for frame in found:
                if self._enough(taken, take, until):
                    break  # hang up mid-chunk: the rest was never "seen"
                self.received.append(frame)
                self.arrivals.append(time.monotonic())
                taken += 1
            async with self._changed:
                self._changed.notify_all()
            if self._enough(taken, take, until):
                return

    def _enough(self, taken: int, take: int | None, until: str | None) -> bool:
        return taken == take or (until is not None and self.finished(until))

    async def until(self, done: Callable[[list[tuple[int, Event]]], bool]) -> None:
        async with asyncio.timeout(WITHIN), self._changed:
            await self._changed.wait_for(lambda: done(self.received))

    def finished(self, run_id: str) -> bool:
        return finish_of(run_id)(self.received)

    def arrival_of(self, kind: str, run_id: str) -> float | None:
        """When the first of ``run_id``'s events of type ``kind`` arrived."""
        return next(
            (
                t
                for t, (_, e) in zip(self.arrivals, self.received, strict=True)
                if e["type"] == kind and e["runId"] == run_id
            ),
            None,
        )

    def finish(self, run_id: str) -> Event | None:
        return next((e for e in of_type(self.received, "run-finish") if e["runId"] == run_id), None)


def of_type(received: list[tuple[int, Event]], kind: str) -> list[Event]:
    return [event for _, event in received if event["type"] == kind]


def arrived(kind: str) -> Callable[[list[tuple[int, Event]]], bool]:
    return lambda received: bool(of_type(received, kind))


def finish_of(run_id: str) -> Callable[[list[tuple[int, Event]]], bool]:
    return lambda received: any(
        e["type"] == "run-finish" and e["runId"] == run_id for _, e in received
    )


@dataclass(frozen=True)
class Delivery:
    """What clients of one thread saw, against what the thread's log holds."""

    received: list[tuple[int, Event]]
    log: dict[int, Event]

    @property
    def duplicated(self) -> int:
        ids = [i for i, _ in self.received]
        return len(ids) - len(set(ids))

    @property
    def lost(self) -> int:
        seen = {i for i, _ in self.received}
        return sum(1 for i in self.log if i not in seen)

    @property
    def reordered(self) -> int:
        """Events that arrived after one with a higher id (duplicates not counted again)."""
        highest, count, seen = 0, 0, set()
        for i, _ in self.received:
            if i < highest and i not in seen:
                count += 1
            seen.add(i)
            highest = max(highest, i)
        return count

    @property
    def altered(self) -> int:
        """Events whose content differs from the log's under the same id."""
        return sum(1 for i, e in self.received if i in self.log and self.log[i] != e)


async def log_of(base_url: str, thread: str, last_run: str) -> dict[int, Event]:
    """The thread's whole log, read from the start up to ``last_run``'s ``run-finish``."""
    reader = Follower(thread)
    task = asyncio.create_task(reader.follow(base_url))
    try:
        await reader.until(finish_of(last_run))
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return dict(reader.received)


def delivery_figures(deliveries: list[Delivery]) -> dict[str, int]:
    """Events in the logs, and how many clients lost, saw twice, out of order or altered."""
    return {
        "events": sum(len(d.log) for d in deliveries),
        "lost": sum(d.lost for d in deliveries),
        "duplicated": sum(d.duplicated for d in deliveries),
        "reordered": sum(d.reordered for d in deliveries),
        "altered": sum(d.altered for d in deliveries),
    }


CLEAN = {"lost": 0, "duplicated": 0, "reordered": 0, "altered": 0}
"""What ``delivery_figures`` must say besides the event count."""
