"""What the service race measures, against one server through its client: throughput, memory
per held run, fan-out to many listeners on one thread. Docstrings say how each is taken.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from _held_runs import HEAP, MEASURE, UNTRACED
from _race_clients import Client, Followed
from _race_servers import Server
from sse_common import percentile

__all__ = [
    "CpuMeter",
    "Fanout",
    "HeldMemory",
    "Options",
    "Round",
    "Throughput",
    "fanout",
    "held_memory",
    "throughput",
]

TURNS_PER_THREAD = 10
OPENING = 50  # connections a burst of clients has opening at once
_HELD_POLL = 0.05


@dataclass(frozen=True)
class Throughput:
    """One throughput row: every run it finished, and what it took."""

    runs: list[Followed]
    seconds: float
    server_cpu: float  # seconds of CPU the server's process tree used meanwhile
    load: float

    @property
    def per_second(self) -> float:
        return len(self.runs) / self.seconds

    @property
    def cpu_ms_per_run(self) -> float:
        return self.server_cpu * 1000 / len(self.runs)

    def latency_ms(self, attribute: str, p: float) -> float:
        return percentile([getattr(r, attribute) * 1000 for r in self.runs], p)


@dataclass(frozen=True)
class HeldMemory:
    """The server's Python heap (bytes ``tracemalloc`` traces) and resident memory (MiB) before
    and while ``runs`` runs were held."""

    runs: int
    idle_heap: int
    held_heap: int
    idle_mib: float
    held_mib: float
    load: float

    @property
    def kib_per_run(self) -> float:
        """What each held run keeps allocated: the measure the target is held to."""
        return (self.held_heap - self.idle_heap) / 1024 / self.runs

    @property
    def rss_kib_per_run(self) -> float:
        """The growth of resident memory per held run: zero while the heap has free room."""
        return (self.held_mib - self.idle_mib) * 1024 / self.runs


@dataclass(frozen=True)
class Fanout:
    """One thread's run followed by ``listeners`` streams: memory (MiB) and times (ms)."""

    listeners: int
    idle_mib: float
    listening_mib: float
    to_all_ms: float  # release -> the last listener has the run's end
    spread_ms: float  # first listener's first event of the released run -> last one's end
    p50_ms: float  # release -> a listener has the run's end, median over listeners
    load: float


@dataclass
class Round:
    """Every measure of one round, by server name (and, for throughput, concurrency)."""

    throughput: dict[tuple[str, int], Throughput] = field(default_factory=dict)
    memory: dict[str, HeldMemory] = field(default_factory=dict)
    fanout: dict[str, Fanout] = field(default_factory=dict)


class CpuMeter(Protocol):
    """What a throughput row needs of the server: one process tree, or several replicas."""

    def cpu_seconds(self) -> float: ...


async def throughput(
    client: Client, server: CpuMeter, concurrency: int, seconds: float
) -> Throughput:
    """``concurrency`` clients, each running turns on its own thread until ``seconds`` pass."""
    deadline = time.perf_counter() + seconds
    gate = asyncio.Semaphore(OPENING)

    async def one_client() -> list[Followed]:
        done: list[Followed] = []
        while time.perf_counter() < deadline:
            async with gate:
                thread = await client.new_thread()
            for _ in range(TURNS_PER_THREAD):
                if time.perf_counter() >= deadline:
                    break
                done.append(await client.run(thread))
        return done

    started, cpu = time.perf_counter(), server.cpu_seconds()
    runs = [
        r
        for batch in await asyncio.gather(*(one_client() for _ in range(concurrency)))
        for r in batch
    ]
    elapsed = time.perf_counter() - started
    return Throughput(runs, elapsed, server.cpu_seconds() - cpu, os.getloadavg()[0])


async def held_memory(client: Client, server: Server, runs: int, releases: Path) -> HeldMemory:
    """The heap and resident memory while ``runs`` runs wait in their first model call, each
    streamed, less the same before. A probe run, held throughout, is how the benchmark asks the
    server for its heap both times, so the probe's own cost is in both figures."""
    probe, token = uuid.uuid4().hex, uuid.uuid4().hex
    gate = asyncio.Semaphore(OPENING)

    async def one_run(held_for: str) -> Followed:
        async with gate:
            thread = await client.new_thread()
        return await client.run(thread, f"hold {held_for}")

    tasks = [asyncio.create_task(one_run(probe))]
    await _all_held(releases, probe, 1, tasks)
    idle_heap, idle = await _heap(releases, probe, tasks), await _settled_rss(server)
    tasks += [asyncio.create_task(one_run(token)) for _ in range(runs)]
    await _all_held(releases, token, runs, tasks)
    held_heap, held = await _heap(releases, probe, tasks), await _settled_rss(server)
    load = os.getloadavg()[0]
    for released in (token, probe):
        (releases / released).touch()
    await asyncio.gather(*tasks)
    return HeldMemory(runs, idle_heap, held_heap, idle, held, load)


async def fanout(client: Client, server: Server, listeners: int, releases: Path) -> Fanout:
    """``listeners`` streams on one thread whose run is held, then released."""
    token = uuid.uuid4().hex
    thread = await client.new_thread()
    idle = await _settled_rss(server)
    run = await client.start_background(thread, f"hold {token}")
    await _all_held(releases, token, 1, [])
    gate, opened = asyncio.Semaphore(OPENING), asyncio.Event()
    connected = [0]

    async def one_listener() -> Followed:
        async with gate:
            listener = await client.listen(thread, run)
        connected[0] += 1
        if connected[0] == listeners:
            opened.set()
        return await client.follow(listener)

    tasks = [asyncio.create_task(one_listener()) for _ in range(listeners)]
    await asyncio.wait_for(opened.wait(), timeout=120)
    await asyncio.sleep(1)  # let the last connections' first frames settle before measuring
    listening = await _settled_rss(server)
    load = os.getloadavg()[0]
    released = time.perf_counter()
    (releases / token).touch()
    seen = await asyncio.gather(*tasks)
    ends = [s.started + s.end for s in seen]
    firsts = [t for s in seen for t in s.arrivals if t > released]
    return Fanout(
        listeners,
        idle,
        listening,
        (max(ends) - released) * 1000,
        (max(ends) - min(firsts)) * 1000,
        statistics.median(e - released for e in ends) * 1000,
        load,
    )


async def _all_held(
    releases: Path, token: str, runs: int, tasks: list[asyncio.Task[Followed]]
) -> None:
    """Wait until the servers' fake models hold ``runs`` runs for ``token``."""
    count = releases / f"{token}.held"

    def held() -> int:
        return int(count.read_text() or 0) if count.exists() else 0

    if not await _until(lambda: held() >= runs, tasks):
        raise RuntimeError(f"only {held()} of {runs} runs held")


async def _heap(releases: Path, token: str, tasks: list[asyncio.Task[Followed]]) -> int:
    """The server's traced Python heap, in bytes, asked of the watcher of held ``token``."""
    answer = releases / f"{token}{HEAP}"
    answer.unlink(missing_ok=True)
    (releases / f"{token}{MEASURE}").touch()
    text = answer.read_text() if await _until(answer.exists, tasks) else "no answer"
    if not text.isdigit():
        why = "runs without PYTHONTRACEMALLOC" if text == UNTRACED else text
        raise RuntimeError(f"the server's heap is unknown: {why}")
    return int(text)


async def _until(ready: Callable[[], bool], tasks: list[asyncio.Task[Followed]]) -> bool:
    """Whether ``ready()`` (a file the server writes) came true within 300 s. A run of
    ``tasks`` that failed meanwhile raises."""
    deadline = time.monotonic() + 300
    while not ready():
        failed = next((t for t in tasks if t.done() and t.exception()), None)
        if failed is not None:
            raise RuntimeError("a held run failed") from failed.exception()
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_HELD_POLL)  # the file is another process's to write
    return True


async def _settled_rss(server: Server) -> float:
    """The median of five samples 100 ms apart (the RSS moves while the allocator settles)."""
    samples = []
    for _ in range(5):
        samples.append(server.rss_mib())
        await asyncio.sleep(0.1)  # sampling another process's memory over a moment
    return statistics.median(samples)


@dataclass(frozen=True)
class Options:
    """How much the race measures (``--quick`` or not, and the options that override it)."""

    venv: Path
    rounds: int
    seconds: float
    warmup: float
    concurrency: tuple[int, ...]
    held_runs: int
    listeners: int
    memory_only: bool = False  # only the held runs' round (``--only memory``)
