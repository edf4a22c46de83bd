"""Scenario (h): a soak with faults. Run loops on every replica, watched by normal, slow and
frozen SSE readers, while in turn a replica is killed (-9, and started again), Redis restarts
and PostgreSQL drops every connection. Nothing is lost or run twice, every run completes, the
RSS of each replica process is flat over the soak's last half (its last hour from two hours
on), and once idle the replicas hold no more file descriptors, database sessions or Redis
clients than they did idle after the warm-up.

It lasts ``RUNYARD_SOAK_SECONDS`` after a warm-up (180 s by default in ``make test-system``,
at least one fault of each kind; ``make soak`` runs it for two hours). The RSS samples and the
faults are the soak's own clock, not waits for something to happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from faults import KINDS, Faults
from idle_resources import Held, held
from ledger import Ledger, ledger_cluster
from private_services import PrivateRedis
from replicas import IDENTITY, Cluster, Replica
from results import Scenario, timing
from rss_trend import FLAT, lives, window
from sse_record import CLEAN, Delivery, Follower, delivery_figures, log_of
from traffic import RETRY, http, keep_following, new_thread, start_through_outage

from postgres_databases import private_database

pytestmark = pytest.mark.system

SECONDS = float(os.environ.get("RUNYARD_SOAK_SECONDS", "180"))
WARM_UP = min(60.0, SECONDS / 3)
"""Seconds of the same load, without faults, before the idle baseline and the soak: pools,
the bus and the allocator reach their working size."""
LOOPS = 6
RUNS_PER_THREAD = 10
"""Runs in one conversation: a loop then starts a new thread, as users do, so no client's
record grows for hours."""
MESSAGES = ("/delay 10\n" + "word " * 60, '/tool tally {"hold_ms": 500}')
"""A streamed answer and a tool call, in turn: the ledger counts every tool execution."""
HOLD = 60.0
"""Seconds a slow or frozen reader keeps one connection before it hangs up and connects again to
its loop's current thread (a client behind a proxy's idle timeout): the readers' own pacing."""
WITHIN = 300.0
"""Seconds a run may take to start, and to finish, across a fault (a killed replica may take a
minute to start again on this loaded machine)."""
SAMPLE_EVERY = max(5.0, SECONDS / 240)
FAULT_EVERY = min(60.0, SECONDS / 4)
IDLE_WITHIN = 90.0
ENDING = 1200
"""Seconds the test may take beyond its warm-up and soak (the suite's timeout is five minutes):
the loops' last runs end, the cluster idles, every thread's log is read back."""
FD_SLACK = 2
"""File descriptors a replica may hold idle beyond its baseline. A leak costs one per run, reader
connection or fault (hundreds to thousands over a soak), so 2 hides none, while sparing the
check a descriptor some library opens once, late, and keeps. Database sessions and Redis clients
get no slack: idle, a replica's pool keeps at most its 10 connections (the overflow closes as it
comes back) and the baseline is taken after the warm-up filled it; a fault can only leave fewer."""


@dataclass
class Loop:
    """One run loop: its conversations (a follower and the runs on each thread)."""

    index: int
    conversations: list[tuple[Follower, list[str]]] = field(default_factory=list)
    stuck: str = ""

    @property
    def thread(self) -> str:
        return self.conversations[-1][0].thread if self.conversations else ""


async def keep_running(group: Cluster, loop: Loop, until: float) -> None:
    """Runs one after another on replica ``index``, followed from the next replica, until
    ``until``; a new thread every ``RUNS_PER_THREAD`` runs."""
    async with http() as client:
        while time.monotonic() < until:
            if not loop.conversations or len(loop.conversations[-1][1]) == RUNS_PER_THREAD:
                loop.conversations.append((Follower(new_thread("soak")), []))
            follower, runs = loop.conversations[-1]
            message = MESSAGES[len(runs) % len(MESSAGES)]
            url = group.replicas[loop.index % len(group.replicas)].url
            run_id = await start_through_outage(
                client, url, follower.thread, message, set(runs), WITHIN
            )
            if run_id is None:
                loop.stuck = f"no run started on {follower.thread}"
                return
            runs.append(run_id)
            if not await keep_following(follower, group.other(loop.index).url, run_id, WITHIN):
                loop.stuck = f"{run_id} on {follower.thread} did not finish"
                return


async def read(
    client: httpx.AsyncClient, replica: Replica, loop: Loop, slow: bool, connections: Counter[str]
) -> None:
    """A slow (1 KB each half second) or frozen (never reads) reader of the loop's current
    thread on ``replica``, reconnecting every ``HOLD`` seconds or when its connection drops."""
    kind = "slow" if slow else "frozen"
    while True:
        if not loop.thread:  # the loop has not started its first conversation yet
            await asyncio.sleep(RETRY)
            continue
        with contextlib.suppress(httpx.TransportError, TimeoutError):
            url = f"{replica.url}/v1/events/{loop.thread}"
            async with asyncio.timeout(HOLD), client.stream("GET", url) as response:
                connections[kind] += 1
                if not slow:
                    await asyncio.Event().wait()
                async for _ in response.aiter_raw(1024):
                    await asyncio.sleep(0.5)  # a reader on a poor link
        await asyncio.sleep(RETRY)


@asynccontextmanager
async def odd_readers(group: Cluster, loops: list[Loop]) -> AsyncIterator[Counter[str]]:
    """A slow and a frozen reader of each loop on every replica, hung up at the end."""
    connections: Counter[str] = Counter()
    async with httpx.AsyncClient(headers=IDENTITY, timeout=None) as client:
        readers = [
            asyncio.create_task(read(client, replica, loop, slow, connections))
            for loop in loops
            for replica in group.replicas
            for slow in (True, False)
        ]
        try:
            yield connections
        finally:
            for task in readers:
                task.cancel()
            await asyncio.gather(*readers, return_exceptions=True)


async def load(group: Cluster, loops: list[Loop], seconds: float) -> Counter[str]:
    """The run loops and the odd readers for ``seconds`` (the loops' last runs end after)."""
    until = time.monotonic() + seconds
    async with odd_readers(group, loops) as connections:
        await asyncio.gather(*(keep_running(group, loop, until) for loop in loops))
    return connections


async def sample(
    group: Cluster, faults: Faults, until: float, series: list[dict[str, float]], loads: list[float]
) -> None:
    """RSS of each replica every ``SAMPLE_EVERY`` seconds, tagged with its process (``start``);
    a replica being restarted is skipped (it cannot answer the probe before it runs). And the
    machine's load average, which the figures are read against (the machine is shared)."""
    started = time.monotonic()
    while time.monotonic() < until:
        loads.append(os.getloadavg()[0])
        for replica in group.replicas:
            if replica.index in faults.down:
                continue
            start = replica.starts
            with contextlib.suppress(TimeoutError):
                probe = await asyncio.to_thread(replica.probe)
                if replica.starts == start and replica.index not in faults.down:
                    point = {"t": round(time.monotonic() - started, 1), "replica": replica.index}
                    point |= {"start": start, "rss_mb": round(probe.rss_kb / 1024, 1)}
                    series.append(point)
        await asyncio.sleep(SAMPLE_EVERY)


async def idle(group: Cluster, database: str, redis: PrivateRedis, bound: Held | None) -> Held:
    """What the cluster holds once idle: with ``bound``, once it holds no more than that; else
    once two counts a second apart agree (the hung-up readers' sockets are closed). After
    ``IDLE_WITHIN`` seconds, what it holds then."""
    before, now = None, await held(group, database, redis.port)
    deadline = time.monotonic() + IDLE_WITHIN
    while time.monotonic() < deadline:
        if within(now, bound) if bound is not None else now == before:
            break
        await asyncio.sleep(1)  # sockets close on their own timers: count again
        before, now = now, await held(group, database, redis.port)
    return now


def within(now: Held, bound: Held) -> bool:
    return (
        all(n <= b for n, b in zip(now.fds, bound.fds, strict=True))
        and now.database_sessions <= bound.database_sessions
        and now.redis_clients <= bound.redis_clients
    )


def allowance(baseline: Held) -> Held:
    return Held(
        [n + FD_SLACK for n in baseline.fds],
        baseline.database_sessions,
        baseline.redis_clients,
    )


@pytest.fixture
def soaked(
    tmp_path: Path, own_redis: PrivateRedis
) -> Iterator[tuple[Cluster, Ledger, str, PrivateRedis]]:
    """Three replicas of this test's own, on a database and a Redis of its own (so the sessions
    and clients counted are the replicas')."""
    for database in private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_soak"):
        with ledger_cluster(tmp_path, database, own_redis.url) as (group, ledger):
            yield group, ledger, database, own_redis


def status(follower: Follower, run_id: str) -> str:
    finish = follower.finish(run_id)
    return "never finished" if finish is None else str(finish["payload"]["status"])


@pytest.mark.timeout(WARM_UP + SECONDS + ENDING)
async def test_a_soak_with_kills_and_redis_and_postgres_faults_stays_flat_and_exact(
    soaked: tuple[Cluster, Ledger, str, PrivateRedis], scenario: Scenario
) -> None:
    """(h) soak with kills, Redis and PostgreSQL faults: flat RSS, idle back to baseline, exact"""
    group, ledger, database, redis = soaked
    warm = [Loop(i) for i in range(LOOPS)]
    await load(group, warm, WARM_UP)
    baseline = await idle(group, database, redis, None)

    faults = Faults(group, redis, database, victim=len(group.replicas) - 1)
    loops, series, loads = [Loop(i) for i in range(LOOPS)], list[dict[str, float]](), list[float]()
    until = time.monotonic() + SECONDS
    connections, _, _ = await asyncio.gather(
        load(group, loops, SECONDS),
        faults.every(FAULT_EVERY, until),
        sample(group, faults, until, series, loads),
    )
    after = await idle(group, database, redis, allowance(baseline))

    conversations = [c for loop in [*warm, *loops] for c in loop.conversations]
    statuses = Counter(status(f, run) for f, runs in conversations for run in runs)
    url = group.replicas[0].url
    deliveries = [
        Delivery(f.received, await log_of(url, f.thread, runs[-1]))
        for f, runs in conversations
        if runs and f.finished(runs[-1])
    ]
    judged = window(SECONDS)
    memory = [life.figures(judged) for life in lives(series, SECONDS - judged)]
    scenario.figures.update(
        seconds=SECONDS,
        warm_up_seconds=WARM_UP,
        load_average={
            "min": round(min(loads), 1),
            "median": round(statistics.median(loads), 1),
            "max": round(max(loads), 1),
        },
        runs=sum(statuses.values()),
        statuses=dict(statuses),
        faults=dict(faults.done),
        sessions_dropped=faults.sessions_dropped,
        restart_seconds=timing(faults.restart_seconds),
        loops=LOOPS,
        readers={"normal": LOOPS, "slow": LOOPS * 3, "frozen": LOOPS * 3},
        reader_connections=dict(connections),
        tools_executed_twice=len(ledger.twice()),
        stuck=[loop.stuck for loop in [*warm, *loops] if loop.stuck],
        rss_window_seconds=judged,
        rss_lives=memory,
        rss_growth_max=max((m["growth"] for m in memory if m["judged"]), default=None),
        idle_baseline=baseline.as_figures(),
        idle_after=after.as_figures(),
        rss_series=series,
        **delivery_figures(deliveries),
    )
    assert all(faults.done[kind] >= 1 for kind in KINDS)
    assert scenario.figures["stuck"] == []
    assert statuses == Counter({"completed": sum(statuses.values())})
    assert ledger.twice() == []
    assert len(deliveries) == len(conversations)
    assert delivery_figures(deliveries) == {**delivery_figures(deliveries), **CLEAN}
    assert any(m["judged"] for m in memory)
    assert all(m["growth"] <= FLAT for m in memory if m["judged"])
    assert within(after, allowance(baseline))
