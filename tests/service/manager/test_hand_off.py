"""Graceful shutdown as a hand-off (issue 11 item 4): a closing run manager takes no new run,
lets its runs end within the grace, and stops the rest *unfinished*, releasing their leases so
another process takes them over at once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from service_harness import OWNER, service, start_waiting

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.service import ServiceStopping
from runyard.storage import Store
from runyard.testing import call, scripted_model, text
from runyard.tools import tool


def gated(started: asyncio.Event, gate: asyncio.Event) -> Callable[[Store], list[Agent]]:
    """An assistant whose tool call waits for ``gate``, then answers ``done``."""

    @tool
    async def wait_for_gate() -> str:
        """Wait until the test opens the gate."""
        started.set()
        await gate.wait()
        return "opened"

    def build(store: Store) -> list[Agent]:
        model = scripted_model([call("wait_for_gate", id="call_g"), text("done")])
        return [Agent("assistant", model, tools=[wait_for_gate], memory=Memory(store))]

    return build


async def test_a_run_that_ends_within_the_grace_is_finished_by_its_own_process(
    sqlite_url: str,
) -> None:
    started, gate = asyncio.Event(), asyncio.Event()
    async with service(sqlite_url, gated(started, gate)) as svc:
        run_id = await start_waiting(svc.runs, started)
        closing = asyncio.create_task(svc.runs.aclose(settle_seconds=30))
        await asyncio.sleep(0)  # one loop turn: closing has begun
        with pytest.raises(ServiceStopping):
            await svc.runs.start(OWNER, "t2", "hello")
        gate.set()  # the run ends by itself within the grace
        await closing
        row = await svc.store.get_run(run_id)
        finish = (await svc.log("t1"))[-1][1]

    assert row is not None
    assert row.status == "completed"
    assert finish.type == "run-finish"
    assert finish.payload.status == "completed"


async def test_a_run_handed_off_at_shutdown_is_continued_by_another_replica(
    sqlite_url: str,
) -> None:
    started, gate = asyncio.Event(), asyncio.Event()
    async with service(sqlite_url, gated(started, gate)) as svc:
        run_id = await start_waiting(svc.runs, started)
        await svc.runs.aclose(settle_seconds=0)
        gate.set()
        survivor = await svc.replica("survivor")  # its start-up sweep takes the released lease
        await survivor.settle("t1")
        row = await svc.store.get_run(run_id)
        finishes = [e for _, e in await svc.log("t1") if e.type == "run-finish"]

    assert row is not None
    assert row.status == "completed"
    assert [f.payload.status for f in finishes] == ["completed"]
