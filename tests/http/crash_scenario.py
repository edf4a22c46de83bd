"""Kill ``runyard serve`` mid-stream and restart it, while a client records every event it sees.

One client follows a thread across every server it talks to, resuming each connection with
``Last-Event-ID`` = the last id it received, as a browser does. Each round posts a slow message
(``/delay``), SIGKILLs the server once the client has seen ``n`` events of that run, and starts a
new server on the same database. After the last kill a final message runs to its end. Nothing
waits for a fixed time: every wait is for an event, bounded. ``CrashReport`` holds what the
client saw and what the log finally holds; its methods name what went wrong, so the crash test
asserts on them and ``benchmarks/crash_probe.py`` counts them.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
from http_harness import FrameParser
from server_process import client_for, server

from chat_start import start_run

__all__ = ["CrashReport", "Kill", "Recorder", "kill_and_restart"]

Received = list[tuple[int, dict[str, Any]]]
SLOW_MESSAGE = "/delay 20\n" + "word " * 80
WITHIN = 90
"""Seconds any one wait may take: a restarted server may first let the dead one's lease expire."""


class Recorder:
    """An SSE client of one thread that records every event it receives, over all its
    connections; each new connection resumes after the last id received."""

    def __init__(self, thread: str) -> None:
        self.thread = thread
        self.received: Received = []
        self._changed = asyncio.Condition()

    @property
    def last_id(self) -> int:
        return self.received[-1][0] if self.received else 0

    async def follow(self, client: httpx.AsyncClient) -> None:
        """Record until the connection drops (the server died) or the task is cancelled."""
        headers = {"Last-Event-ID": str(self.last_id)} if self.received else {}
        parser = FrameParser()
        path = f"/v1/events/{self.thread}"
        with contextlib.suppress(httpx.TransportError):
            async with client.stream("GET", path, headers=headers, timeout=None) as response:
                async for chunk in response.aiter_bytes():
                    for frame in parser.feed(chunk):
                        if frame.id is not None and frame.data is not None:
                            self.received.append((frame.id, frame.data))
                    async with self._changed:
                        self._changed.notify_all()

    async def until(self, done: Callable[[Received], bool]) -> None:
        """Return once ``done(received)`` holds."""
        async with asyncio.timeout(WITHIN), self._changed:
            await self._changed.wait_for(lambda: done(self.received))


@asynccontextmanager
async def following(
    recorder: Recorder, client: httpx.AsyncClient
) -> AsyncIterator[asyncio.Task[None]]:
    """``recorder`` follows the thread on ``client`` while the block runs."""
    task = asyncio.create_task(recorder.follow(client))
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def finished(run_id: str) -> Callable[[Received], bool]:
    return lambda received: any(_is_finish(data, run_id) for _, data in received)


def _is_finish(data: dict[str, Any], run_id: str) -> bool:
    return bool(data["type"] == "run-finish" and data["runId"] == run_id)


async def replay(client: httpx.AsyncClient, thread: str, run_id: str) -> Received:
    """The thread's log from its start up to ``run_id``'s ``run-finish``."""
    reader = Recorder(thread)
    async with following(reader, client):
        await reader.until(finished(run_id))
    return reader.received


async def post(client: httpx.AsyncClient, thread: str, message: str) -> str:
    """Start a run; while the crashed run's row is still closing, the thread answers 409."""
    return await start_run(client, f"/v1/chat/{thread}", message, WITHIN)


@dataclass
class Kill:
    """A run whose server was killed once the client had received ``seen`` as its last id."""

    run_id: str
    seen: int
    finish_id: int = 0
    """The id of the run's ``run-finish`` in the log (written after the restart)."""


@dataclass
class CrashReport:
    """What the client received, and what the thread's log holds once it is all over."""

    received: Received = field(default_factory=list)
    stored: dict[int, dict[str, Any]] = field(default_factory=dict)
    kills: list[Kill] = field(default_factory=list)
    final_run: str = ""

    def lost(self) -> list[int]:
        """Ids of events the client received that the log does not hold."""
        return [i for i, data in self.received if self.stored.get(i) != data]

    def reused(self) -> list[int]:
        """Ids the client received whose event the log holds with other content."""
        return [i for i in self.lost() if i in self.stored]

    def hidden_finishes(self) -> list[str]:
        """Crashed runs whose ``run-finish`` a client resuming from its last id cannot see."""
        return [k.run_id for k in self.kills if k.finish_id <= k.seen]

    def ids(self) -> list[int]:
        return [i for i, _ in self.received]

    def run_events(self, run_id: str) -> tuple[Received, Received]:
        """The run's events as the client received them, and as the log holds them."""
        seen = [(i, d) for i, d in self.received if d["runId"] == run_id]
        stored = [(i, d) for i, d in sorted(self.stored.items()) if d["runId"] == run_id]
        return seen, stored


async def kill_and_restart(
    url: str, port: int, thread: str, kill_after: Sequence[int], **env: str
) -> CrashReport:
    """One killed run per entry of ``kill_after`` (the number of its events the client sees
    before the SIGKILL), then a final run on the last server, all on ``thread``."""
    report, recorder = CrashReport(), Recorder(thread)
    for seen_events in kill_after:
        with server(url, port, **env) as process:
            async with client_for(port) as client, following(recorder, client) as follow:
                await _settle_crash(client, thread, report)
                run_id = await post(client, thread, SLOW_MESSAGE)
                await recorder.until(lambda r: _count(r, run_id) >= seen_events)  # noqa: B023
                process.send_signal(signal.SIGKILL)
                await asyncio.to_thread(process.wait, 20)
                async with asyncio.timeout(WITHIN):
                    await follow  # the connection drops with the server
            report.kills.append(Kill(run_id, recorder.last_id))
    with server(url, port, **env):
        async with client_for(port) as client, following(recorder, client):
            await _settle_crash(client, thread, report)
            report.final_run = await post(client, thread, "all is well " * 5)
            await recorder.until(finished(report.final_run))
            report.stored = dict(await replay(client, thread, report.final_run))
    report.received = recorder.received
    return report


async def _settle_crash(client: httpx.AsyncClient, thread: str, report: CrashReport) -> None:
    """Wait until the log holds the last killed run's ``run-finish``; note its id."""
    if report.kills:
        kill = report.kills[-1]
        kill.finish_id = (await replay(client, thread, kill.run_id))[-1][0]


def _count(received: Received, run_id: str) -> int:
    return sum(1 for _, data in received if data["runId"] == run_id)
