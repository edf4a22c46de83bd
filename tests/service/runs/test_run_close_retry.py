"""A run's close is two writes — its row closed, then its progress forgotten — and the database
may drop between them. Whichever path retries the ending (the heartbeat carrying on after an
outage, an owed ending run again) finds the row closed, and still forgets the progress: a closed
run leaves no progress checkpoint and no tool-call rows behind.
"""

from __future__ import annotations

import asyncio
from functools import partial

from service_harness import OWNER, service

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.service import EventLog
from runyard.service.bus import InProcessEventBus
from runyard.service.manager.owed_endings import OwedEndings
from runyard.service.runs.checkpoints import RunCheckpoints
from runyard.service.runs.finish import RunEnding, RunFinisher
from runyard.storage import (
    DatabaseUnavailable,
    ForwardingStore,
    RunProgress,
    Store,
    ToolCallEntry,
    open_store,
)
from runyard.testing import call, scripted_model, text
from runyard.tools import tool


class DropsProgressLate(ForwardingStore):
    """A store whose first ``drop_progress`` fails as a dropped connection does, having kept what
    it would have dropped (``left``); ``dropped`` is set once a later one succeeds."""

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.left: RunProgress | None = None
        self.dropped = asyncio.Event()

    async def drop_progress(self, run_id: str) -> None:
        if self.left is None:
            self.left = await self.inner.load_progress(run_id)
            raise DatabaseUnavailable("the connection to the database was lost")
        await self.inner.drop_progress(run_id)
        self.dropped.set()


def looking_up(store: Store) -> list[Agent]:
    """An agent that calls one tool, then answers."""

    @tool
    async def lookup() -> str:
        """Look something up."""
        return "found"

    model = scripted_model([call("lookup", id="c1"), text("done")])
    return [Agent("assistant", model, tools=[lookup], memory=Memory(store))]


async def test_a_run_whose_progress_drop_failed_leaves_none_after_the_heartbeat_retries(
    db_url: str,
) -> None:
    wrapped: list[DropsProgressLate] = []

    def wrap(store: Store) -> Store:
        wrapped.append(DropsProgressLate(store))
        return wrapped[0]

    async with service(db_url, looking_up, lease_seconds=0.6, wrap=wrap) as svc:
        (store,) = wrapped
        await svc.runs.keep_leases()  # its heartbeat retries what the outage left owed
        run_id = await svc.runs.start(OWNER, "t1", "go")
        async with asyncio.timeout(20):
            await store.dropped.wait()
        row = await svc.store.get_run(run_id)
        progress = await svc.store.load_progress(run_id)
        finishes = [e.payload.status for _, e in await svc.log("t1") if e.type == "run-finish"]

    assert store.left is not None
    assert list(store.left.calls) == ["c1"]  # there was something to drop
    assert row is not None
    assert (row.status, finishes) == ("completed", ["completed"])
    assert (progress.state, progress.calls) == (None, {})


async def test_an_owed_finish_retried_after_its_row_closed_still_forgets_the_progress(
    db_url: str,
) -> None:
    store = DropsProgressLate(await open_store(db_url))
    bus = InProcessEventBus()
    events = EventLog(store, bus)
    try:
        run = await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="me")
        call_row = ToolCallEntry("c1", "lookup", "settled", {"kind": "success", "output": 1})
        await store.record_progress("r1", [call_row], epoch=run.lease_epoch, state={"step": 1})
        finisher = RunFinisher(store, events, RunCheckpoints([]))
        ending = RunEnding("completed")
        endings = OwedEndings()
        finish = partial(finisher.finish, "r1", "t1", ending, epoch=run.lease_epoch)
        await endings.end("r1", finish)  # its row closed, its progress drop failed: owed
        await endings.retry()  # as the heartbeat does
        row = await store.get_run("r1")
        progress = await store.load_progress("r1")
    finally:
        await events.close()
        await bus.close()
        await store.close()

    assert store.left is not None
    assert list(store.left.calls) == ["c1"]
    assert row is not None
    assert row.status == "completed"
    assert (progress.state, progress.calls) == (None, {})
