"""A run's close is one write — its row closed, its progress forgotten — and the database may
drop its answer after it committed. Whichever path retries the ending (the heartbeat carrying
on after an outage, an owed ending run again) finds the row closed and logs nothing more, and
the closed run has left no progress checkpoint and no tool-call rows behind.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

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
    RunRecord,
    Store,
    ToolCallEntry,
    open_store,
)
from runyard.testing import call, scripted_model, text
from runyard.tools import tool


class LosesCloseAnswer(ForwardingStore):
    """A store whose first ``close_run`` commits, then fails as a dropped connection does; ``left``
    is the progress the run had before it, ``closed`` is set once it committed."""

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.left: RunProgress | None = None
        self.closed = asyncio.Event()

    async def close_run(self, run_id: str, *args: Any, **kwargs: Any) -> RunRecord:
        if self.closed.is_set():
            return await self.inner.close_run(run_id, *args, **kwargs)
        self.left = await self.inner.load_progress(run_id)
        await self.inner.close_run(run_id, *args, **kwargs)
        self.closed.set()
        raise DatabaseUnavailable("the connection to the database was lost")


def looking_up(store: Store) -> list[Agent]:
    """An agent that calls one tool, then answers."""

    @tool
    async def lookup() -> str:
        """Look something up."""
        return "found"

    model = scripted_model([call("lookup", id="c1"), text("done")])
    return [Agent("assistant", model, tools=[lookup], memory=Memory(store))]


async def test_a_run_whose_close_lost_its_answer_leaves_no_progress_and_one_finish(
    db_url: str,
) -> None:
    wrapped: list[LosesCloseAnswer] = []

    def wrap(store: Store) -> Store:
        wrapped.append(LosesCloseAnswer(store))
        return wrapped[0]

    async with service(db_url, looking_up, lease_seconds=0.6, wrap=wrap) as svc:
        (store,) = wrapped
        await svc.runs.keep_leases()  # its heartbeat retries what the outage left owed
        run_id = await svc.runs.start(OWNER, "t1", "go")
        async with asyncio.timeout(20):
            await store.closed.wait()
            await svc.runs.wait_idle(OWNER.thread_key("t1"))
        row = await svc.store.get_run(run_id)
        progress = await svc.store.load_progress(run_id)
        finishes = [e.payload.status for _, e in await svc.log("t1") if e.type == "run-finish"]

    assert store.left is not None
    assert list(store.left.calls) == ["c1"]  # there was something to forget
    assert row is not None
    assert (row.status, finishes) == ("completed", ["completed"])
    assert (progress.state, progress.calls) == (None, {})


async def test_an_owed_finish_retried_after_its_row_closed_logs_nothing_more(
    db_url: str,
) -> None:
    store = LosesCloseAnswer(await open_store(db_url))
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
        await endings.end("r1", finish)  # its row closed, the answer lost: owed
        await endings.retry()  # as the heartbeat does
        row = await store.get_run("r1")
        progress = await store.load_progress("r1")
        logged = [e.type for e in await store.read_events("t1")]
    finally:
        await events.close()
        await bus.close()
        await store.close()

    assert store.left is not None
    assert list(store.left.calls) == ["c1"]
    assert row is not None
    assert row.status == "completed"
    assert logged == ["run-finish"]
    assert (progress.state, progress.calls) == (None, {})
