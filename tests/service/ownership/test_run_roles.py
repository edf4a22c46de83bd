"""Roles (issue 11 item 5): an ``api`` replica queues the runs it accepts, starts and resumes
alike, and never drives one; a ``worker`` claims them, at most its concurrency at once. A cancel
of a queued run ends it where it waits; a worker that never heard of a run finds it by polling.
Run managers on one store, as replicas of one deployment."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from service_harness import OWNER, Service, key, service

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.protocol import WireEvent, parse_event
from runyard.service.bus import InProcessEventBus
from runyard.storage import RunRecord, Store
from runyard.tools import tool

HOLD = "/tool hold {}"
APPROVE = '/tool save_note {"text": "buy milk"}'


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runyard.db'}"


class Gate:
    """The ``hold`` tool's record of which runs started it, and the gate it waits at."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.open = asyncio.Event()
        self.changed = asyncio.Event()

    async def until_started(self, count: int) -> None:
        async with asyncio.timeout(20):
            while len(self.started) < count:
                self.changed.clear()
                await self.changed.wait()


def holding_agents(gate: Gate) -> Callable[[Store], list[Agent]]:
    """The demo model with ``hold``, a tool that waits at ``gate``, beside the default tools."""

    @tool
    async def hold() -> str:
        """Wait until the test lets go."""
        gate.started.append("hold")
        gate.changed.set()
        await gate.open.wait()
        return "held"

    def build(store: Store) -> list[Agent]:
        return [Agent("assistant", "runyard:demo", tools=[hold], memory=Memory(store))]

    return build


async def next_event(svc: Service, thread: str, kind: str, *, after: int = 0) -> WireEvent:
    """The thread's first event of type ``kind`` after ``after``, waited for."""
    async with asyncio.timeout(20), svc.events.reader(key(thread), after) as reader:
        while True:
            for live in await reader.next():
                event = parse_event(live.json)
                if event.type == kind:
                    return event


async def finish(svc: Service, thread: str, *, after: int = 0) -> dict[str, Any]:
    """The payload of the thread's next ``run-finish`` after ``after``, waited for."""
    event = await next_event(svc, thread, "run-finish", after=after)
    return dict(event.payload.model_dump(exclude={"usage"}))


async def run_of(svc: Service, run_id: str) -> RunRecord:
    record = await svc.store.get_run(run_id)
    assert record is not None
    return record


async def test_a_run_an_api_replica_accepts_is_executed_by_a_worker(url: str) -> None:
    async with service(url) as svc:
        api = await svc.replica("api-1", role="api")
        await svc.replica("worker-1", role="worker")
        run_id = await api.runs.start(OWNER, "t1", "hello there")
        finished = await finish(api, "t1")
        record = await run_of(api, run_id)
        types = await api.types("t1")

    assert finished["status"] == "completed"
    assert (record.status, record.lease_owner, record.queued_work) == (
        "completed",
        "worker-1",
        "start",
    )
    assert types[0] == "run-start"
    assert types.count("run-start") == 1
    assert "run-resumed" not in types


async def test_a_confirm_sent_to_an_api_replica_resumes_the_run_on_a_worker(url: str) -> None:
    async with service(url) as svc:
        api = await svc.replica("api-1", role="api")
        worker = await svc.replica("worker-1", role="worker")
        run_id = await api.runs.start(OWNER, "t1", APPROVE)
        await next_event(api, "t1", "confirmation-request")
        await worker.runs.wait_idle(key("t1"))  # suspended: the segment has ended
        await api.runs.confirm(OWNER, await api.request_id("t1"), {"approved": True})
        finished = await finish(api, "t1")
        record = await run_of(api, run_id)
        notes = [e for _, e in await api.log("t1") if e.type == "tool-result"]

    assert finished["status"] == "completed"
    assert (record.lease_owner, record.queued_work) == ("worker-1", "resume")
    assert len(notes) == 1


async def test_a_cancelled_queued_run_ends_where_it_waits_and_no_worker_runs_it(
    url: str,
) -> None:
    gate = Gate()
    async with service(url, holding_agents(gate)) as svc:
        api = await svc.replica("api-1", role="api")
        run_id = await api.runs.start(OWNER, "t1", HOLD)
        queued = await run_of(api, run_id)
        cancelled = await api.runs.cancel(OWNER, "t1")
        await svc.replica("worker-1", role="worker")
        again = await api.runs.start(OWNER, "t1", "hello")
        finished = await finish(api, "t1", after=2)
        record = await run_of(api, run_id)
        first_finish = next(e for _, e in await api.log("t1") if e.type == "run-finish")

    assert queued.status == "queued"
    assert cancelled
    assert (record.status, first_finish.payload.status) == ("cancelled", "cancelled")
    assert gate.started == []
    assert again != run_id
    assert finished["status"] == "completed"


async def test_a_worker_runs_at_most_its_concurrency_and_the_rest_wait_queued(url: str) -> None:
    gate = Gate()
    async with service(url, holding_agents(gate)) as svc:
        api = await svc.replica("api-1", role="api")
        await svc.replica("worker-1", role="worker", worker_concurrency=2)
        run_ids = [await api.runs.start(OWNER, f"t{i}", HOLD) for i in range(5)]
        await gate.until_started(2)
        waiting = [(await run_of(api, run_id)).status for run_id in run_ids]
        gate.open.set()
        finished = [await finish(api, f"t{i}") for i in range(5)]

    assert sorted(waiting) == ["queued"] * 3 + ["running"] * 2
    assert [f["status"] for f in finished] == ["completed"] * 5
    assert len(gate.started) == 5


async def test_a_worker_whose_wake_up_was_lost_finds_the_queued_run_by_polling(url: str) -> None:
    async with service(url) as svc:
        api = await svc.replica("api-1", role="api")
        # A bus of its own: no message of the api replica's ever reaches this worker.
        deaf = InProcessEventBus()
        svc.stack.push_async_callback(deaf.close)
        worker = await svc.replica("worker-1", bus=deaf, role="worker", queue_poll_seconds=0.05)
        run_id = await api.runs.start(OWNER, "t1", "hello")
        finished = await finish(worker, "t1")
        record = await run_of(api, run_id)

    assert finished["status"] == "completed"
    assert record.lease_owner == "worker-1"
