"""Runs started and closed while other threads append (SQLite writes them in the loop turn's
shared transaction, with the appends): each caller gets its own outcome, and a start whose
caller is cancelled while it waits is written whole or not at all."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from runyard.storage import (
    OpeningEvent,
    RunConflict,
    RunRecord,
    RunStart,
    StaleLease,
    Store,
    StoredEvent,
)

pytestmark = pytest.mark.backends("memory", "sqlite", "postgresql")


def _events(thread_id: str, ids: range) -> list[StoredEvent]:
    return [StoredEvent(thread_id, i, None, "status", {"message": f"#{i}"}, 1000 + i) for i in ids]


async def _start(store: Store, run_id: str, thread_id: str) -> RunStart:
    return await store.start_run(
        run_id,
        [],
        thread_id=thread_id,
        tenant_id="acme",
        resource_id="ada",
        owner="proc",
        opening=[OpeningEvent("run-start", {"at": run_id})],
    )


async def test_starts_and_closes_among_overlapping_appends_each_get_their_own_outcome(
    store: Store,
) -> None:
    await _start(store, "busy-run", "busy")  # a second open run of "busy" is refused
    closing = (await _start(store, "done-run", "done")).run
    stale = (await _start(store, "stale-run", "stale")).run
    await store.take_over("stale-run", "another", epoch=stale.lease_epoch)

    outcomes = await asyncio.gather(
        *(store.append_events(f"o{n}", _events(f"o{n}", range(1, 3))) for n in range(3)),
        _start(store, "new-run", "new"),
        _start(store, "second-run", "busy"),
        store.close_run("done-run", "completed", epoch=closing.lease_epoch),
        store.close_run("stale-run", "completed", epoch=stale.lease_epoch),
        return_exceptions=True,
    )

    appended, started, refused, closed, fenced = outcomes[:3], *outcomes[3:]
    assert appended == [None] * 3
    assert isinstance(started, RunStart)
    assert [e.type for e in started.opening] == ["run-start"]
    assert isinstance(refused, RunConflict)
    assert isinstance(closed, RunRecord)
    assert closed.status == "completed"
    assert isinstance(fenced, StaleLease)
    for n in range(3):
        assert await store.read_events(f"o{n}") == _events(f"o{n}", range(1, 3))
    assert [e.data for e in await store.read_events("new")] == [{"at": "new-run"}]
    assert [e.data for e in await store.read_events("busy")] == [{"at": "busy-run"}]
    assert await store.get_run("second-run") is None
    assert (await store.get_run("stale-run")).status == "running"  # type: ignore[union-attr]


async def test_a_start_whose_caller_is_cancelled_while_it_waits_is_written_whole(
    store: Store,
) -> None:
    # An append first: on SQLite the start then waits for the loop's next turn with it.
    appending = asyncio.ensure_future(store.append_events("o", _events("o", range(1, 3))))
    starting = asyncio.ensure_future(_start(store, "cut-run", "cut"))
    await asyncio.sleep(0)  # both are on their way
    starting.cancel()
    await appending
    with contextlib.suppress(asyncio.CancelledError):
        await starting

    row = await store.get_run("cut-run")
    logged = [e.data for e in await store.read_events("cut")]
    # Whatever the backend did with it: the run and its opening are both there, or neither.
    assert (row is None and logged == []) or (
        row is not None and row.status == "running" and logged == [{"at": "cut-run"}]
    )
