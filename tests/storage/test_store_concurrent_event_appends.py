"""Appends of many threads at once (SQLite shares one transaction among those that overlap):
every row lands, in order per thread, and one thread's id conflict fails only that thread."""

from __future__ import annotations

import asyncio

import pytest

from runyard.storage import EventIdConflict, EventLogStore, StoredEvent

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
