"""Appends of many threads at once (SQLite shares one transaction among those that overlap,
with the runs' journals they carry): every row lands, in order per thread, and one thread's id
conflict or one run's lost lease fails only that append."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import pytest

from runyard.storage import (
    EventIdConflict,
    EventLogStore,
    LedgerWrite,
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
