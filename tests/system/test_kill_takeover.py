"""Scenario (a): kill -9 the replica running several runs, some mid-tool and some mid-stream.
Every run completes on a survivor, each completed tool call ran exactly once (the ledger
counts), and clients connected to the survivors see every event exactly once, in order. The
same holds for a LangGraph agent (``graph_worker``, ``runtime: langchain``), at a small size.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from ledger import Ledger, ledger_cluster
from replicas import Cluster, Replica
from results import Scenario, percentile, timing
from sizes import scale
from sse_record import CLEAN, Delivery, Follower, delivery_figures, log_of, of_type
from traffic import http, keep_following, new_thread, poll, start_run

from postgres_databases import private_database

pytestmark = pytest.mark.system

LEASE = "30"
"""The default lease: a takeover within seconds is the death watch's doing (service.md,
"Liveness"), not a lease lapsing."""
TAKEOVER_P95 = 5.0
"""Seconds from the kill to ``run-resumed`` on a survivor, at the 95th percentile (issue 27)."""
COMPLETION_P95 = 10.0
"""Seconds from the kill to ``run-finish``, at the 95th percentile (issue 27): the takeover and
what is left of the run, which for a run killed mid-stream is its whole step again (the survivor
says it again under new ids, after ``run-resumed``)."""
MID_TOOL = '/tool tally {"hold_ms": 15000}'
MID_STREAM = "/delay 20\n" + "word " * 100
"""A step that streams for ~4 s (two deltas a word, 20 ms apart): a user's answer of a few
sentences, long enough to be killed mid-stream."""
WITHIN = 60.0
"""Seconds after the kill by which every run must have ended (the issue asks for 30 s)."""


@pytest.fixture
def killable(tmp_path: Path, redis_url: str) -> Iterator[tuple[Cluster, Ledger]]:
    """Three replicas of this test's own, which it kills and restarts."""
    for database in private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_kill"):
        with ledger_cluster(tmp_path, database, redis_url, RUNYARD_LEASE_SECONDS=LEASE) as pair:
            yield pair


@dataclass
class Victim:
    """A run on the replica about to be killed, and the client watching it from a survivor."""

    run_id: str
    follower: Follower
    mid_tool: bool


async def in_flight(victim: Victim, ledger: Ledger) -> None:
    """Wait until the run is mid-tool (its call started) or mid-stream (text is flowing)."""
    if victim.mid_tool:
        await poll(lambda: ledger.started(victim.run_id) > 0, WITHIN, "the tool call started")
    else:
        await victim.follower.until(lambda r: len(of_type(r, "text-delta")) >= 5)


async def start_victims(target: Replica, runs: int, agent: str) -> list[Victim]:
    """``runs`` runs of ``agent`` on ``target``, every other one mid-tool."""
    victims = []
    async with http() as client:
        for n in range(runs):
            thread = new_thread("kill")
            message = MID_TOOL if n % 2 == 0 else MID_STREAM
            run_id = await start_run(client, target.url, thread, message, agent)
            victims.append(Victim(run_id, Follower(thread), n % 2 == 0))
    return victims


async def kill_round(
    group: Cluster, ledger: Ledger, index: int, runs: int, agent: str = "worker"
) -> Round:
    """Start ``runs`` runs of ``agent`` on replica ``index``, kill it mid-flight while clients
    watch from a survivor until the runs end; restart it."""
    target, watcher = group.replicas[index], group.other(index)
    victims = await start_victims(target, runs, agent)
    watching = [
        asyncio.create_task(keep_following(v.follower, watcher.url, v.run_id, WITHIN * 3))
        for v in victims
    ]
    await asyncio.gather(*(in_flight(v, ledger) for v in victims))
    await asyncio.to_thread(target.kill)
    killed_at = time.monotonic()
    in_flight_tools = [v.run_id for v in victims if v.mid_tool and not ledger.done(v.run_id)]
    await asyncio.gather(*watching)
    await asyncio.to_thread(target.start)
    await asyncio.to_thread(target.wait_ready)
    return Round(victims, killed_at, len(in_flight_tools))


@dataclass
class Round:
    victims: list[Victim]
    killed_at: float
    tools_in_flight: int
    """Tool calls started and not ended when the replica died."""

    def takeover(self) -> list[float]:
        """Seconds from the kill to each run's ``run-resumed``, logged by the survivor that
        took it over."""
        resumed = [v.follower.arrival_of("run-resumed", v.run_id) for v in self.victims]
        return [t - self.killed_at for t in resumed if t is not None]

    def resumed_work(self) -> list[float]:
        """Seconds from each run's ``run-resumed`` to its ``run-finish``: what the survivor had
        left to do, which completion adds to the takeover."""
        spans = []
        for v in self.victims:
            resumed = v.follower.arrival_of("run-resumed", v.run_id)
            if resumed is not None and v.follower.finished(v.run_id):
                spans.append(v.follower.arrivals[-1] - resumed)
        return spans

    def completion(self) -> list[float]:
        """Seconds from the kill to each finished run's ``run-finish``."""
        return [
            v.follower.arrivals[-1] - self.killed_at
            for v in self.victims
            if v.follower.finished(v.run_id)
        ]


def status(victim: Victim) -> str:
    finish = victim.follower.finish(victim.run_id)
    return "never finished" if finish is None else str(finish["payload"]["status"])


async def deliveries(group: Cluster, victims: list[Victim]) -> list[Delivery]:
    url = group.replicas[0].url
    return [
        Delivery(v.follower.received, await log_of(url, v.follower.thread, v.run_id))
        for v in victims
        if v.follower.finished(v.run_id)
    ]


async def test_kill_9_mid_run_and_mid_tool_every_run_completes_on_a_survivor(
    killable: tuple[Cluster, Ledger], scenario: Scenario
) -> None:
    """(a) kill -9 a replica mid-run and mid-tool: runs complete on a survivor, no tool twice"""
    await kill_scenario(*killable, scenario, kills=scale(ci=1, full=30), agent="worker")


async def test_kill_9_a_langgraph_agents_runs_complete_on_a_survivor(
    killable: tuple[Cluster, Ledger], scenario: Scenario
) -> None:
    """(a') the same for a LangGraph agent (runtime: langchain): no tool twice"""
    await kill_scenario(*killable, scenario, kills=scale(ci=1, full=5), agent="graph_worker")


async def kill_scenario(
    group: Cluster, ledger: Ledger, scenario: Scenario, *, kills: int, agent: str
) -> None:
    """``kills`` rounds of 4 runs of ``agent`` each, the figures, and what must hold."""
    runs = 4
    rounds = [
        await kill_round(group, ledger, i % len(group.replicas), runs, agent) for i in range(kills)
    ]
    victims = [v for r in rounds for v in r.victims]
    statuses = Counter(status(v) for v in victims)
    completion = [t for r in rounds for t in r.completion()]
    takeover = [t for r in rounds for t in r.takeover()]
    delivered = delivery_figures(await deliveries(group, victims))
    scenario.figures.update(
        runs=len(victims),
        kills=kills,
        tools_in_flight_at_kill=sum(r.tools_in_flight for r in rounds),
        statuses=dict(statuses),
        takeover_seconds=timing(takeover),
        completion_seconds=timing(completion),
        resumed_work_seconds=timing([t for r in rounds for t in r.resumed_work()]),
        tools_executed_twice=len(ledger.twice()),
        **delivered,
    )
    assert sum(r.tools_in_flight for r in rounds) == kills * runs // 2  # it did die mid-tool
    assert statuses == Counter({"completed": len(victims)})
    assert max(completion) <= 30
    assert len(takeover) == len(victims)  # every run was taken over, and said so
    assert percentile(takeover, 0.95) <= TAKEOVER_P95
    assert percentile(completion, 0.95) <= COMPLETION_P95
    assert ledger.twice() == []
    assert delivered == {**delivered, **CLEAN}
