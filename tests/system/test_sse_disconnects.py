"""Scenario (f): SSE clients that hang up at random, 30% of the time reconnecting to another
replica, resuming with ``Last-Event-ID``. Every event id is seen exactly once, in order, with
the content the log holds — live or replayed, whichever replica serves it."""

from __future__ import annotations

import asyncio
import random

import httpx
from ledger import Ledger
from replicas import Cluster
from results import Scenario
from sizes import scale
from sse_record import CLEAN, Delivery, Follower, delivery_figures, log_of
from traffic import http, new_thread, start_run

MOVE = 0.3
"""The share of reconnections that go to another replica."""
LONGEST = 8
"""A connection hangs up after 1 to this many events."""


async def hop(
    cluster: Cluster, follower: Follower, run_id: str, quota: int, rng: random.Random
) -> int:
    """Follow the thread, hanging up ``quota`` times, then read to its end; the hang-ups made."""
    where, hung_up = rng.randrange(len(cluster.replicas)), 0
    async with httpx.AsyncClient(timeout=None) as client:
        while hung_up < quota and not follower.finished(run_id):
            await follower.follow(
                cluster.replicas[where].url, take=rng.randint(1, LONGEST), client=client
            )
            hung_up += 1
            if rng.random() < MOVE:
                where = (where + rng.randint(1, len(cluster.replicas) - 1)) % len(cluster.replicas)
        if not follower.finished(run_id):
            await follower.follow(cluster.replicas[where].url, until=run_id, client=client)
    return hung_up


async def follow_to_end(cluster: Cluster, follower: Follower, run_id: str, quota: int) -> int:
    async with asyncio.timeout(300):
        return await hop(cluster, follower, run_id, quota, random.Random(run_id))


async def test_random_disconnects_with_reconnects_elsewhere_see_every_event_once_in_order(
    replicas: tuple[Cluster, Ledger], scenario: Scenario
) -> None:
    """(f) 1,000 random SSE disconnects, 30% reconnecting to another replica"""
    cluster, _ = replicas
    threads, disconnects = scale(ci=4, full=10), scale(ci=100, full=1000)
    quota = disconnects // threads
    # Enough events that each client makes its quota before the run ends (two per word).
    message = "/delay 5\n" + "word " * (3 * quota + 10)
    names = [new_thread("hop") for _ in range(threads)]
    async with http() as client:
        runs = [
            await start_run(client, cluster.replicas[i % 3].url, t, message)
            for i, t in enumerate(names)
        ]
    followers = [Follower(t) for t in names]
    made = await asyncio.gather(
        *(follow_to_end(cluster, f, run, quota) for f, run in zip(followers, runs, strict=True))
    )
    deliveries = [
        Delivery(f.received, await log_of(cluster.replicas[0].url, f.thread, run))
        for f, run in zip(followers, runs, strict=True)
    ]

    totals = delivery_figures(deliveries)
    scenario.figures.update(
        threads=threads,
        disconnects=sum(made),
        connections=sum(f.connections for f in followers),
        **totals,
    )
    assert sum(made) == disconnects
    assert totals == {**totals, **CLEAN}
    for delivery in deliveries:
        assert [i for i, _ in delivery.received] == sorted(delivery.log)
