"""The ``RunSnapshots`` part: one document per finished run, upserted by run id, paged newest
first by where the run ended in the log, returned in log order, and gone with its thread."""

from __future__ import annotations

import pytest
from store_parts import assert_implements

from runyard.storage import RunSnapshot, RunSnapshots, Store


def snapshot(run: int, thread_id: str = "t1") -> RunSnapshot:
    """Run ``run`` covers events 10·run+1 … 10·run+10."""
    data = {"assistant": {"content": f"answer {run}", "nested": [1, {"x": None}]}}
    return RunSnapshot(thread_id, f"run-{run}", 10 * run + 1, 10 * run + 10, data, 1000 + run)


async def test_every_backend_is_a_run_snapshots_part(store: RunSnapshots) -> None:
    assert_implements(store, RunSnapshots)


async def test_snapshots_are_read_back_in_log_order(store: RunSnapshots) -> None:
    await store.save_run_snapshots("t1", [snapshot(2), snapshot(0)])
    await store.save_run_snapshots("t1", [snapshot(1)])
    await store.save_run_snapshots("t2", [snapshot(5, "t2")])
    assert await store.read_run_snapshots("t1") == [snapshot(0), snapshot(1), snapshot(2)]
    assert await store.last_snapshot_event_id("t1") == 30
    assert await store.last_snapshot_event_id("t2") == 60
    assert await store.last_snapshot_event_id("empty") == 0
    assert await store.read_run_snapshots("empty") == []


async def test_pages_are_the_newest_runs_before_a_position(store: RunSnapshots) -> None:
    await store.save_run_snapshots("t1", [snapshot(run) for run in range(6)])

    async def runs(**page: int) -> list[str]:
        return [s.run_id for s in await store.read_run_snapshots("t1", **page)]

    assert await runs(limit=2) == ["run-4", "run-5"]
    assert await runs(before_event_id=41, limit=2) == ["run-2", "run-3"]
    assert await runs(before_event_id=40, limit=2) == ["run-1", "run-2"]  # run-3 ends at 40
    assert await runs(before_event_id=11) == ["run-0"]
    assert await runs(before_event_id=1) == []


async def test_saving_a_run_again_replaces_its_snapshot(store: RunSnapshots) -> None:
    await store.save_run_snapshots("t1", [snapshot(0)])
    newer = RunSnapshot("t1", "run-0", 1, 12, {"assistant": {"content": "longer"}}, 2000)
    await store.save_run_snapshots("t1", [newer, snapshot(1)])
    await store.save_run_snapshots("t1", [])
    assert await store.read_run_snapshots("t1") == [newer, snapshot(1)]


@pytest.mark.backends("memory", "sqlite", "postgresql")
async def test_snapshots_go_with_their_thread(store: Store) -> None:
    await store.save_thread("t1", tenant_id="acme", resource_id="alice")
    await store.save_run_snapshots("t1", [snapshot(0)])
    await store.delete_thread("t1", tenant_id="acme", resource_id="alice")
    assert await store.read_run_snapshots("t1") == []


async def test_a_snapshot_keeps_its_runs_transcript_exactly(store: RunSnapshots) -> None:
    # What a state read replays a run from: entries of every kind, JSON of every shape.
    transcript = [
        {"kind": "start", "messageId": "msg_1"},
        {"kind": "reasoning", "text": "let me think"},
        {"kind": "text", "text": 'Héllo ✓ \n"quoted"'},
        {"kind": "call", "toolCallId": "c1", "toolName": "calc", "args": {"n": [1, 2.5, None]}},
        {"kind": "result", "toolCallId": "c1", "result": {"deep": {"ok": True, "big": 2**53}}},
        {"kind": "error", "toolCallId": "c2", "error": "denied"},
        {"kind": "result", "toolCallId": "c3", "result": None},
        {"kind": "finish", "eventId": 9, "status": "completed", "output": {"answer": 5}},
    ]
    data = {"messageId": "msg_1", "assistant": {"content": "Héllo"}, "transcript": transcript}
    saved = RunSnapshot("t1", "run-0", 1, 9, data, 1000)
    await store.save_run_snapshots("t1", [saved])
    (read,) = await store.read_run_snapshots("t1")
    assert read.data["transcript"] == transcript
    assert read == saved
