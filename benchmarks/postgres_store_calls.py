"""CPU per store call on PostgreSQL: what a run's store calls cost the process that makes them.

    python benchmarks/postgres_store_calls.py --postgres URL [--calls N]

The service race on PostgreSQL (``service_vs_langgraph.py --postgres``) measures a whole run
among two replicas, LangGraph Server, the client and PostgreSQL on two shared cores; a change of
a round trip or two per run is below its noise. This measures the store's calls of a run alone,
one after another on a private database (``--calls`` fresh threads, each: ``start_run`` with
the run's ``run-start``, ``get_thread``, an events-only ``append_events``, ``close_run``), as this
process's CPU time per call in µs. Compare two checkouts by running each with ``PYTHONPATH`` at
its ``src``, alternating (docs/benchmarks.md, "Service throughput").
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from _shared_services import redis_option, shared_services

from runyard.messages import AgentMessage
from runyard.storage import OpeningEvent, Store, StoredEvent, open_store

OWNER = {"tenant_id": "acme", "resource_id": "alice"}
_WARM_UP = 20
_OPENING = [OpeningEvent("run-start", {"type": "run-start"})]


async def _timed(spent: dict[str, float], name: str, call: Callable[[], Awaitable[Any]]) -> Any:
    before = time.process_time()
    result = await call()
    spent[name] = spent.get(name, 0.0) + time.process_time() - before
    return result


async def _one_run(store: Store, spent: dict[str, float], index: int) -> None:
    thread = f"t-{uuid.uuid4().hex}"
    message = AgentMessage.user("hi", id=f"m{index}")
    run_id = f"run-{index}-{thread}"

    def start() -> Awaitable[Any]:
        return store.start_run(
            run_id, [message], thread_id=thread, owner="bench", opening=_OPENING, **OWNER
        )

    started = await _timed(spent, "start_run", start)
    await _timed(spent, "get_thread", lambda: store.get_thread(thread, **OWNER))
    event = StoredEvent(thread, 2, run_id, "text-delta", {"type": "text-delta"}, 1)
    await _timed(spent, "append_events", lambda: store.append_events(thread, [event]))
    epoch = started.run.lease_epoch
    await _timed(spent, "close_run", lambda: store.close_run(run_id, "completed", epoch=epoch))


async def measure(url: str, calls: int) -> dict[str, float]:
    """µs of this process's CPU per call, by store method."""
    store = await open_store(url)
    try:
        for index in range(_WARM_UP):  # statements compiled, the pool's connections open
            await _one_run(store, {}, index)
        spent: dict[str, float] = {}
        for index in range(calls):
            await _one_run(store, spent, index)
    finally:
        await store.close()
    return {name: seconds / calls * 1e6 for name, seconds in spent.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", required=True, help="a PostgreSQL server's URL")
    parser.add_argument("--calls", type=int, default=400)
    args = parser.parse_args()
    with shared_services(args.postgres, redis_option(), "runyard_store_calls") as shared:
        found = asyncio.run(measure(shared.database, args.calls))
    print(" ".join(f"{name} {us:.0f} µs" for name, us in found.items()))


if __name__ == "__main__":
    main()
