"""A run's start is one write; a database outage may cut it off after it committed. The request
fails (the database is away), and the run it may have opened is settled as one whose driver
stopped — carried on from its user's message, never left open and undriven, renewed by its
process's heartbeat for good."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from service_harness import OWNER, key, service

from runyard.storage import DatabaseUnavailable, ForwardingStore, RunStart, Store


class LosesStartAnswer(ForwardingStore):
    """A store whose first ``start_run`` commits, then fails as a dropped connection does."""

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.started: RunStart | None = None

    async def start_run(self, *args: Any, **kwargs: Any) -> RunStart:
        if self.started is not None:
            return await self.inner.start_run(*args, **kwargs)
        self.started = await self.inner.start_run(*args, **kwargs)
        raise DatabaseUnavailable("the connection to the database was lost")


async def test_a_start_cut_off_after_it_committed_is_carried_on_and_frees_the_thread(
    db_url: str,
) -> None:
    wrapped: list[LosesStartAnswer] = []

    def wrap(store: Store) -> Store:
        wrapped.append(LosesStartAnswer(store))
        return wrapped[0]

    async with service(db_url, wrap=wrap) as svc:
        (store,) = wrapped
        with pytest.raises(DatabaseUnavailable):
            await svc.runs.start(OWNER, "t1", "hello")
        assert store.started is not None
        cut_off_id = store.started.run.run_id
        async with asyncio.timeout(20):
            await svc.runs.wait_idle(key("t1"))
        cut_off = await svc.store.get_run(cut_off_id)
        run_id = await svc.runs.start(OWNER, "t1", "hello again")
        async with asyncio.timeout(20):
            await svc.runs.wait_idle(key("t1"))
        log = [e for _, e in await svc.log("t1")]

    assert cut_off is not None
    assert (cut_off.status, cut_off.is_open) == ("completed", False)
    # Its run-start was stored with its start, so it is carried on from the user's message
    # (after a run-resumed naming its opening), and answered once.
    assert [(e.type, e.run_id) for e in log][:2] == [
        ("run-start", cut_off_id),
        ("run-resumed", cut_off_id),
    ]
    finishes = [(e.run_id, e.payload.status) for e in log if e.type == "run-finish"]
    assert finishes == [(cut_off_id, "completed"), (run_id, "completed")]


class SignalsStart(ForwardingStore):
    """A store that says when a ``start_run`` is on its way (then starts it as usual)."""

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.starting = asyncio.Event()

    async def start_run(self, *args: Any, **kwargs: Any) -> RunStart:
        self.starting.set()
        return await self.inner.start_run(*args, **kwargs)


async def test_a_start_whose_request_is_cancelled_on_its_way_leaves_no_run_open(
    db_url: str,
) -> None:
    # On SQLite the start waits for the loop turn's shared transaction, which writes it even
    # though its caller was cancelled meanwhile: the run is then ended like any that could not
    # launch, and the thread is free for the next message.
    wrapped: list[SignalsStart] = []

    def wrap(store: Store) -> Store:
        wrapped.append(SignalsStart(store))
        return wrapped[0]

    async with service(db_url, wrap=wrap) as svc:
        (store,) = wrapped
        request = asyncio.create_task(svc.runs.start(OWNER, "t1", "hello"))
        await store.starting.wait()
        request.cancel()
        with contextlib.suppress(asyncio.CancelledError):  # or it was done by then
            await request
        async with asyncio.timeout(20):
            await svc.runs.wait_idle(key("t1"))
        left_open = await svc.store.get_active_run(key("t1"))
        run_id = await svc.runs.start(OWNER, "t1", "hello again")
        async with asyncio.timeout(20):
            await svc.runs.wait_idle(key("t1"))
        finished = await svc.store.get_run(run_id)

    assert left_open is None
    assert finished is not None
    assert finished.status == "completed"
