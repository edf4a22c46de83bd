"""Scenario (g): a soak of steady runs watched by normal, slow and frozen SSE readers on every
replica. Memory stays flat while it lasts, and once the readers hang up and the runs end every
replica is back to the tasks it had when idle: nothing a reader left behind keeps running.

It lasts ``RUNYARD_SOAK_SECONDS`` (60 s by default in ``make test-system``; 600 for the issue's
ten minutes). The memory samples are the soak's own clock (one every few seconds while the load
runs), not a wait for something to happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from ledger import Ledger
from replicas import IDENTITY, Cluster, Probe, Replica, wait_until
from results import Scenario
from sse_record import Follower
from traffic import http, new_thread, run_to_end, start_run

pytestmark = pytest.mark.system

SECONDS = float(os.environ.get("RUNYARD_SOAK_SECONDS", "60"))
THREADS = 6
MESSAGE = "/delay 10\n" + "word " * 60
SAMPLES = 12
GROWTH = 1.25
"""Final RSS may exceed the RSS after warm-up by this factor (plus ``SLACK_KB``): allocator
noise, not a leak, which grows with the soak's length."""
SLACK_KB = 16 * 1024


async def keep_running(cluster: Cluster, thread: str, index: int, until: float) -> int:
    """Runs one after another on ``thread``, at least one, until ``until``; how many."""
    finished = 0
    async with http() as client:
        while finished == 0 or time.monotonic() < until:
            run_id = await start_run(client, cluster.replicas[index % 3].url, thread, MESSAGE)
            await run_to_end(Follower(thread), cluster.other(index).url, run_id)
            finished += 1
    return finished


async def read_slowly(response: httpx.Response) -> None:
    async for _ in response.aiter_raw(1024):
        await asyncio.sleep(0.5)  # a reader on a poor link: the load's shape, not a wait


@asynccontextmanager
async def odd_readers(cluster: Cluster, threads: list[str]) -> AsyncIterator[None]:
    """A slow and a frozen reader per thread on every replica, hung up at the end."""
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(httpx.AsyncClient(headers=IDENTITY, timeout=None))
        slow: list[asyncio.Task[None]] = []
        for thread in threads:
            for replica in cluster.replicas:
                url = f"{replica.url}/v1/events/{thread}"
                await stack.enter_async_context(client.stream("GET", url))  # frozen: never read
                response = await stack.enter_async_context(client.stream("GET", url))
                slow.append(asyncio.create_task(read_slowly(response)))
        try:
            yield
        finally:
            for task in slow:
                task.cancel()
            await asyncio.gather(*slow, return_exceptions=True)


async def sample(cluster: Cluster, until: float, series: list[dict[str, float]]) -> None:
    started = time.monotonic()
    while time.monotonic() < until:
        for replica in cluster.replicas:
            probe = await asyncio.to_thread(replica.probe)
            series.append(point(time.monotonic() - started, replica.index, probe))
        await asyncio.sleep(SECONDS / SAMPLES)


def point(elapsed: float, index: int, probe: Probe) -> dict[str, float]:
    return {
        "t": round(elapsed, 1),
        "replica": index,
        "rss_mb": round(probe.rss_kb / 1024, 1),
        "tasks": probe.tasks,
    }


def extra(now: Probe, idle: Probe) -> list[str]:
    """Tasks running now that did not when the replica was idle, by coroutine name."""
    return sorted((Counter(now.names) - Counter(idle.names)).elements())


def settled(replica: Replica, idle: Probe) -> list[str]:
    """The replica's extra tasks once none is left (or after 60 s, those left then)."""
    with contextlib.suppress(TimeoutError):
        back = lambda: not extra(replica.probe(), idle)  # noqa: E731
        wait_until(back, within=60, what="idle", step=0.5)
    return extra(replica.probe(), idle)


def idle_again(cluster: Cluster, baseline: list[Probe]) -> list[list[str]]:
    return [settled(r, idle) for r, idle in zip(cluster.replicas, baseline, strict=True)]


async def warm_up(cluster: Cluster) -> list[Probe]:
    """A run on each replica, watched from another, then each replica's idle probe: the bus
    starts its listener and publisher with the first subscription, and they stay."""
    now = time.monotonic()
    await asyncio.gather(*(keep_running(cluster, new_thread("warm"), i, now) for i in range(3)))
    return [await asyncio.to_thread(r.probe) for r in cluster.replicas]


async def test_a_soak_with_slow_and_frozen_readers_keeps_memory_flat_and_leaks_no_task(
    replicas: tuple[Cluster, Ledger], scenario: Scenario
) -> None:
    """(g) soak with slow and frozen SSE readers: flat memory, no leaked tasks"""
    cluster, _ = replicas
    baseline = await warm_up(cluster)
    until, series = time.monotonic() + SECONDS, list[dict[str, float]]()
    threads = [new_thread("watched") for _ in range(THREADS)]
    async with odd_readers(cluster, threads):
        load = [keep_running(cluster, t, i, until) for i, t in enumerate(threads)]
        runs, _ = await asyncio.gather(asyncio.gather(*load), sample(cluster, until, series))
    tasks_after = await asyncio.to_thread(idle_again, cluster, baseline)

    warm = [p for p in series if p["t"] >= SECONDS / 4]
    first = {p["replica"]: p["rss_mb"] for p in reversed(warm)}
    last = {p["replica"]: p["rss_mb"] for p in warm}
    scenario.figures.update(
        seconds=SECONDS,
        runs=sum(runs),
        readers={"normal": THREADS, "slow": THREADS * 3, "frozen": THREADS * 3},
        idle_tasks=[p.tasks for p in baseline],
        leaked_tasks=sum(len(names) for names in tasks_after),
        rss_series=series,
        rss_growth={str(i): round(last[i] / first[i], 3) for i in last},
    )
    assert sum(runs) >= THREADS
    for index in last:
        assert last[index] * 1024 <= first[index] * 1024 * GROWTH + SLACK_KB
    assert tasks_after == [[] for _ in cluster.replicas]
