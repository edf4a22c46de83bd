"""Scenario (c): the database restarts every few seconds while three replicas run a steady load
on it (a PostgreSQL cluster of the test's own; never the machine's shared one). Runs complete and
no event is lost or duplicated: a client that cannot start a run retries, as a user would, and
clients follow each thread through another replica than the one running it — a replica that
reads the log from the database, so each restart drops the connections its streams read with.
No stream is cut off mid-response: each rides the restart out, or ends whole and is resumed."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from ledger import ledger_cluster
from private_services import PrivatePostgres
from replicas import Cluster
from results import Scenario
from sizes import scale
from sse_record import CLEAN, Delivery, Follower, delivery_figures, log_of
from traffic import http, keep_following, new_thread, start_through_outage

pytestmark = pytest.mark.system

THREADS = 6
PERIOD = 4.0
"""Seconds between restarts: the outage's cadence, not a wait for something to happen."""
MESSAGE = "/delay 10\n" + "word " * 60
WITHIN = 120.0


@pytest.fixture
def on_own_postgres(
    tmp_path: Path, own_postgres: PrivatePostgres, redis_url: str
) -> Iterator[tuple[Cluster, PrivatePostgres]]:
    with ledger_cluster(tmp_path, own_postgres.url, redis_url) as (group, _):
        yield group, own_postgres


async def keep_running(group: Cluster, index: int, until: float) -> tuple[Follower, list[str]]:
    """Runs one after another on one thread until ``until``, followed from another replica;
    it stops early when a run cannot start or does not end."""
    thread, runs = new_thread("pg"), list[str]()
    follower = Follower(thread)
    async with http() as client:
        while time.monotonic() < until:
            url = group.replicas[index % 3].url
            run_id = await start_through_outage(client, url, thread, MESSAGE, set(runs), WITHIN)
            if run_id is None:
                STUCK.append(thread)
                break
            runs.append(run_id)
            if not await keep_following(follower, group.other(index).url, run_id, WITHIN):
                break
    return follower, runs


STUCK: list[str] = []
"""Threads on which no run could start within ``WITHIN`` seconds."""


async def restart_every(postgres: PrivatePostgres, until: float) -> None:
    while time.monotonic() + PERIOD < until:
        await asyncio.sleep(PERIOD)
        await asyncio.to_thread(postgres.restart)


def status(follower: Follower, run_id: str) -> str:
    finish = follower.finish(run_id)
    return "never finished" if finish is None else str(finish["payload"]["status"])


async def test_restarting_postgres_under_load_completes_runs_and_loses_no_event(
    on_own_postgres: tuple[Cluster, PrivatePostgres], scenario: Scenario
) -> None:
    """(c) restart PostgreSQL every few seconds under load: runs complete, no stream cut, no event lost"""
    group, postgres = on_own_postgres
    STUCK.clear()
    until = time.monotonic() + scale(ci=12, full=40)
    load = asyncio.gather(*(keep_running(group, i, until) for i in range(THREADS)))
    await restart_every(postgres, until)
    followed = await load
    statuses = Counter(status(f, run) for f, runs in followed for run in runs)
    deliveries = [
        Delivery(f.received, await log_of(group.replicas[0].url, f.thread, runs[-1]))
        for f, runs in followed
        if runs and f.finished(runs[-1])
    ]
    delivered = delivery_figures(deliveries)
    scenario.figures.update(
        runs=sum(statuses.values()),
        postgres_restarts=postgres.restarts,
        threads_unable_to_start_a_run=len(STUCK),
        statuses=dict(statuses),
        stream_connections=sum(f.connections for f, _ in followed),
        streams_cut=sum(f.cut for f, _ in followed),
        **delivered,
    )
    assert STUCK == []
    assert sum(f.cut for f, _ in followed) == 0
    assert statuses == Counter({"completed": sum(statuses.values())})
    assert len(deliveries) == THREADS
    assert delivered == {**delivered, **CLEAN}
