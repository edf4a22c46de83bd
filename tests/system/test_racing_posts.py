"""Scenario (d): messages racing onto one thread across three replicas. The database decides
(DESIGN.md §8): exactly one POST starts a run, every other gets 409 ``run_active`` — never a
500, never a second run."""

from __future__ import annotations

import asyncio
from collections import Counter

from ledger import Ledger
from replicas import Cluster
from results import Scenario
from sizes import scale
from sse_record import Follower
from traffic import SLOW, http, new_thread, run_to_end

RACERS = 100


async def race(cluster: Cluster, thread: str) -> list[tuple[int, int, dict[str, object]]]:
    """``RACERS`` POSTs at once, spread over the replicas: (replica, status, body) of each."""
    urls = cluster.urls
    async with http(RACERS) as client:
        responses = await asyncio.gather(
            *(
                client.post(f"{urls[i % len(urls)]}/v1/chat/{thread}", json={"message": SLOW})
                for i in range(RACERS)
            )
        )
    return [(i % len(urls), r.status_code, r.json()) for i, r in enumerate(responses)]


async def test_racing_posts_on_a_thread_start_one_run_and_the_rest_get_409(
    replicas: tuple[Cluster, Ledger], scenario: Scenario
) -> None:
    """(d) 100 racing POSTs per thread across three replicas: one 200, the rest 409"""
    cluster, _ = replicas
    threads = scale(ci=1, full=5)
    outcomes: Counter[str] = Counter()
    for _ in range(threads):
        thread = new_thread("race")
        answers = await race(cluster, thread)
        outcomes.update(str(status) for _, status, _ in answers)
        [(owner, _, started)] = [a for a in answers if a[1] == 200]
        codes = Counter(body["error"]["code"] for _, s, body in answers if s == 409)  # type: ignore[index]
        assert codes == Counter({"run_active": RACERS - 1})
        # The owner cancels (cross-replica cancel is the run-control branch's); a watcher on
        # another replica sees the one run end.
        async with http() as client:
            cancel = await client.post(f"{cluster.replicas[owner].url}/v1/chat/{thread}/cancel")
        assert cancel.status_code == 200
        watcher = Follower(thread)
        await run_to_end(watcher, cluster.other(owner).url, str(started["runId"]))
        starts = [e for _, e in watcher.received if e["type"] == "run-start"]
        assert len(starts) == 1

    scenario.figures.update(threads=threads, posts=threads * RACERS, answers=dict(outcomes))
    assert outcomes == Counter({"200": threads, "409": threads * (RACERS - 1)})
