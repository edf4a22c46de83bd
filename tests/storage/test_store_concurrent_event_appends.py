"""Appends of many threads at once, and runs started and closed among them (SQLite shares one
transaction among those that overlap, with the runs' journals they carry and the bodies of the
starts and closes): every row lands, in order per thread; one thread's id conflict, one run's
lost lease, a refused start or a stale close fails only its own call; and a start whose caller
is cancelled while it waits is written whole or not at all."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable

import pytest

from runyard.storage import (
    EventIdConflict,
    EventLogStore,
    LedgerWrite,
    OpeningEvent,
    RunConflict,
    RunRecord,
    RunStart,
    StaleLease,
    Store,
    StoredEvent,
    ToolCallEntry,
)

pytestmark = pytest.mark.backends("memory", "sqlite", "postgresql")


def _events(thread_id: str, ids: range) -> list[StoredEvent]:
    return [StoredEvent(thread_id, i, "r1", "text-delta", {"text": f"#{i}"}, 1000 + i) for i in ids]


async def test_overlapping_appends_of_many_threads_all_land_in_order(
    store: EventLogStore,
) -> None:
    threads = [f"t{n}" for n in range(40)]

    async def writer(thread_id: str) -> None:
        for first in range(1, 31, 3):  # one writer per thread: each append awaited in turn
            await store.append_events(thread_id, _events(thread_id, range(first, first + 3)))

    await asyncio.gather(*(writer(t) for t in threads))
    for thread_id in threads:
        assert await store.read_events(thread_id) == _events(thread_id, range(1, 31))


async def test_a_conflict_fails_only_its_own_append_among_overlapping_ones(
    store: EventLogStore,
) -> None:
    await store.append_events("taken", _events("taken", range(1, 3)))
    others = [f"t{n}" for n in range(20)]
    appends = [
        *(store.append_events(t, _events(t, range(1, 4))) for t in others[:10]),
        store.append_events("taken", _events("taken", range(2, 4))),  # id 2 is stored already
        *(store.append_events(t, _events(t, range(1, 4))) for t in others[10:]),
    ]
    results = await asyncio.gather(*appends, return_exceptions=True)
    assert isinstance(results[10], EventIdConflict)
    assert [r for i, r in enumerate(results) if i != 10] == [None] * 20
    assert await store.read_events("taken") == _events("taken", range(1, 3))
    for thread_id in others:
        assert await store.read_events(thread_id) == _events(thread_id, range(1, 4))


async def test_a_lost_lease_fails_only_its_own_journaled_append_among_overlapping_ones(
    store: Store,
) -> None:
    runs = [f"r{n}" for n in range(6)]
    for run_id in runs:
        await store.open_run(run_id, thread_id=f"t-{run_id}", tenant_id="acme", owner="proc")
    await store.take_over("r3", "another", epoch=1)  # r3's writes at epoch 1 are stale now
    call = ToolCallEntry("c1", "add", "started")

    def append(run_id: str) -> Awaitable[None]:
        journal = LedgerWrite(run_id, 1, (call,), state={"step": run_id})
        events = _events(f"t-{run_id}", range(1, 3))
        return store.append_events(f"t-{run_id}", events, ledger=[journal])

    # Events-only appends first: on SQLite they wait for the loop's next turn, so the journaled
    # ones join them in one transaction (alone, a journaled append is written at once).
    others = [store.append_events(f"o{n}", _events(f"o{n}", range(1, 3))) for n in range(3)]
    results = await asyncio.gather(*others, *(append(r) for r in runs), return_exceptions=True)
    assert results[:3] == [None] * 3
    journaled = results[3:]
    assert isinstance(journaled[3], StaleLease)
    assert [r for i, r in enumerate(journaled) if i != 3] == [None] * 5
    for n in range(3):
        assert await store.read_events(f"o{n}") == _events(f"o{n}", range(1, 3))
    for run_id in runs:
        progress = await store.load_progress(run_id)
        stored = await store.read_events(f"t-{run_id}")
        if run_id == "r3":
            assert (stored, progress.state, progress.calls) == ([], None, {})
        else:
            assert stored == _events(f"t-{run_id}", range(1, 3))
            assert (progress.state, list(progress.calls)) == ({"step": run_id}, ["c1"])


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
