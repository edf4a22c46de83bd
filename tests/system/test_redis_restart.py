"""Scenario (b): Redis dies and comes back while 100 SSE streams watch runs on three replicas.
The runs complete, and every stream sees every event exactly once, in order — reconnecting with
``Last-Event-ID`` if its connection drops, as a browser does (issue 11 item 6)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from ledger import ledger_cluster
from private_services import PrivateRedis
from replicas import Cluster
from results import Scenario
from sizes import scale
from sse_record import CLEAN, Delivery, Follower, delivery_figures, log_of, of_type
from traffic import http, keep_following, new_thread, start_run

from postgres_databases import private_database

pytestmark = pytest.mark.system

RUNS = 20
STREAMS_PER_RUN = 5
MESSAGE = "/delay 60\n" + "word " * 400
"""Runs of ~50 s or more (two deltas per word): still going when Redis dies, twice."""
WITHIN = 120.0


@pytest.fixture
def on_own_redis(tmp_path: Path, own_redis: PrivateRedis) -> Iterator[tuple[Cluster, PrivateRedis]]:
    for database in private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_redis"):
        with ledger_cluster(tmp_path, database, own_redis.url) as (group, _):
            yield group, own_redis


def status(follower: Follower, run_id: str) -> str:
    finish = follower.finish(run_id)
    return "never finished" if finish is None else str(finish["payload"]["status"])


async def test_restarting_redis_under_100_streams_loses_and_duplicates_nothing(
    on_own_redis: tuple[Cluster, PrivateRedis], scenario: Scenario
) -> None:
    """(b) restart Redis under 100 streams: runs complete, every event seen exactly once"""
    group, redis = on_own_redis
    restarts = scale(ci=1, full=2)
    threads = [new_thread("redis") for _ in range(RUNS)]
    async with http() as client:
        runs = [
            await start_run(client, group.replicas[i % 3].url, t, MESSAGE)
            for i, t in enumerate(threads)
        ]
    streams = [
        (Follower(thread), run_id, group.replicas[(i + k) % 3].url)
        for i, (thread, run_id) in enumerate(zip(threads, runs, strict=True))
        for k in range(STREAMS_PER_RUN)
    ]
    watching = asyncio.gather(*(keep_following(f, url, run, WITHIN) for f, run, url in streams))
    live: list[int] = []  # runs still going at each restart
    for restart in range(restarts):
        # Restart once the first stream of each run has seen text flow, the next time later.
        least = 5 + 20 * restart
        firsts = [f for f, _, _ in streams[::STREAMS_PER_RUN]]
        await asyncio.gather(
            *(f.until(lambda r: len(of_type(r, "text-delta")) >= least) for f in firsts)  # noqa: B023
        )
        live.append(sum(not f.finished(run) for f, run, _ in streams[::STREAMS_PER_RUN]))
        await asyncio.to_thread(redis.restart)
    await watching
    logs = {
        t: await log_of(group.replicas[0].url, t, r) for t, r in zip(threads, runs, strict=True)
    }
    delivered = delivery_figures([Delivery(f.received, logs[f.thread]) for f, _, _ in streams])
    statuses = Counter(status(f, run) for f, run, _ in streams)
    scenario.figures.update(
        runs=RUNS,
        streams=len(streams),
        redis_restarts=restarts,
        runs_live_at_restart=live,
        reconnects=sum(f.connections for f, _, _ in streams) - len(streams),
        statuses=dict(statuses),
        **delivered,
    )
    assert all(live)  # Redis did die under live streams
    assert statuses == Counter({"completed": len(streams)})
    assert delivered == {**delivered, **CLEAN}
