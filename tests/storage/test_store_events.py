"""The ``EventLogStore`` part: writer-assigned ids, unique per thread, read back in order for
replay. The whole suite runs on an event-log-only fake too."""

from __future__ import annotations

import json

import pytest
from store_parts import assert_implements

from runyard.storage import EventIdConflict, EventLogStore, StoredEvent

pytestmark = pytest.mark.part_fakes("event-log-only")


def _events(thread_id: str, ids: range) -> list[StoredEvent]:
    return [StoredEvent(thread_id, i, "r1", "text-delta", {"text": f"#{i}"}, 1000 + i) for i in ids]


async def test_every_backend_is_an_event_log_store(store: EventLogStore) -> None:
    assert_implements(store, EventLogStore)


async def test_appended_events_are_read_back_in_id_order(store: EventLogStore) -> None:
    await store.append_events("t1", _events("t1", range(1, 4)))
    await store.append_events("t1", _events("t1", range(4, 6)))
    events = await store.read_events("t1")
    assert events == _events("t1", range(1, 6))
    assert await store.last_event_id("t1") == 5


async def test_reading_after_a_cursor_with_a_limit(store: EventLogStore) -> None:
    await store.append_events("t1", _events("t1", range(1, 11)))
    assert [e.id for e in await store.read_events("t1", after_id=7)] == [8, 9, 10]
    assert [e.id for e in await store.read_events("t1", after_id=2, limit=3)] == [3, 4, 5]
    assert await store.read_events("t1", after_id=10) == []


async def test_events_read_as_json_text_match_the_decoded_ones(store: EventLogStore) -> None:
    stored = [
        StoredEvent("t1", 1, "r1", "text-delta", {"text": 'quote " and ü'}, 1),
        StoredEvent("t1", 2, "r1", "tool-result", {"result": {"n": [1, 2.5, None, True]}}, 2),
        StoredEvent("t1", 3, "r1", "status", {"message": ""}, 3),
    ]
    await store.append_events("t1", stored)
    rows = await store.read_event_json("t1", after_id=1, limit=1)
    assert [(i, json.loads(text)) for i, text in rows] == [(2, stored[1].data)]
    everything = await store.read_event_json("t1")
    assert [json.loads(text) for _, text in everything] == [e.data for e in stored]


async def test_logs_of_threads_are_independent(store: EventLogStore) -> None:
    await store.append_events("t1", _events("t1", range(1, 3)))
    await store.append_events("t2", _events("t2", range(1, 2)))
    assert await store.last_event_id("t1") == 2
    assert await store.last_event_id("t2") == 1
    assert await store.last_event_id("empty") == 0
    assert [e.thread_id for e in await store.read_events("t2")] == ["t2"]


async def test_a_reused_id_rejects_the_whole_batch(store: EventLogStore) -> None:
    await store.append_events("t1", _events("t1", range(1, 3)))
    with pytest.raises(EventIdConflict):
        await store.append_events("t1", _events("t1", range(3, 6)) + _events("t1", range(2, 3)))
    assert [e.id for e in await store.read_events("t1")] == [1, 2]
    await store.append_events("t1", _events("t1", range(3, 4)))
    assert await store.last_event_id("t1") == 3


async def test_event_data_round_trips_as_json(store: EventLogStore) -> None:
    data = {"nested": {"list": [1, 2.5, "x", None, True]}, "unicode": "héllo ✓"}
    event = StoredEvent("t1", 1, None, "run-finish", data, 42)
    await store.append_events("t1", [event])
    assert await store.read_events("t1") == [event]
