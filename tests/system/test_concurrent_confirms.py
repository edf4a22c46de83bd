"""Scenario (e): one approval answered ten times at once across three replicas. Answering is a
conditional update (DESIGN.md §8): one answer is accepted, nine get 409
``confirmation_answered`` (or ``run_busy``), and the approved tool runs exactly once (the
ledger counts)."""

from __future__ import annotations

import asyncio
from collections import Counter

from ledger import Ledger
from replicas import Cluster
from results import Scenario
from sizes import scale
from sse_record import Follower, arrived, finish_of, of_type
from traffic import following, http, new_thread, start_run

ANSWERS = 10
LOSERS = ("confirmation_answered", "run_busy")


async def confirm_race(cluster: Cluster, request_id: str) -> list[tuple[int, str]]:
    """``ANSWERS`` approvals at once, spread over the replicas: (status, error code) of each."""
    urls = cluster.urls
    async with http(ANSWERS) as client:
        responses = await asyncio.gather(
            *(
                client.post(
                    f"{urls[i % len(urls)]}/v1/confirm/{request_id}", json={"approved": True}
                )
                for i in range(ANSWERS)
            )
        )
    return [(r.status_code, r.json().get("error", {}).get("code", "")) for r in responses]


async def one_round(cluster: Cluster, ledger: Ledger, index: int) -> list[tuple[int, str]]:
    """A run asks for approval; every replica answers at once; the run ends. The answers."""
    thread = new_thread("confirm")
    follower = Follower(thread)
    async with http() as client, following(follower, cluster.replicas[index % 3].url):
        run_id = await start_run(client, cluster.other(index).url, thread, "/tool guarded_tally {}")
        await follower.until(arrived("confirmation-request"))
        [asked] = of_type(follower.received, "confirmation-request")
        answers = await confirm_race(cluster, asked["payload"]["requestId"])
        await follower.until(finish_of(run_id))
    [finish] = of_type(follower.received, "run-finish")
    assert finish["payload"]["status"] == "completed"
    assert ledger.started(run_id) == 1
    return answers


async def test_ten_concurrent_confirms_accept_one_and_the_tool_runs_once(
    replicas: tuple[Cluster, Ledger], scenario: Scenario
) -> None:
    """(e) 10 concurrent confirms across replicas: one accepted, the tool runs once"""
    cluster, ledger = replicas
    rounds = scale(ci=3, full=20)
    tally: Counter[str] = Counter()
    for index in range(rounds):
        answers = await one_round(cluster, ledger, index)
        tally.update(f"{status} {code}".strip() for status, code in answers)
        # A loser that lands while the winner's replica already runs the resumed run may hear
        # run_busy instead of confirmation_answered: a 409 either way, and no second run.
        assert sorted(answers)[0] == (200, "")
        assert set(sorted(answers)[1:]) <= {(409, code) for code in LOSERS}

    twice = ledger.twice()
    scenario.figures.update(rounds=rounds, confirms=rounds * ANSWERS, answers=dict(tally))
    scenario.figures["tools_executed_twice"] = len(twice)
    assert twice == []
