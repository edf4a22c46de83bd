"""A run's start and its close, each one transaction over several parts (``RunLedger``):
``start_run`` claims the thread, opens the run and stores its messages, or does none of it;
``close_run`` closes the row, forgets the run's progress and stores its snapshot, or does none
of it."""

from __future__ import annotations

import pytest

from runyard.json_text import json_text
from runyard.messages import AgentMessage
from runyard.storage import (
    EventIdConflict,
    OpeningEvent,
    RunConflict,
    RunQuota,
    RunQuotaReached,
    RunSnapshot,
    RunStart,
    StaleLease,
    Store,
    StoredEvent,
    ThreadOwnershipError,
    ToolCallEntry,
)

OWNER = {"tenant_id": "acme", "resource_id": "alice"}


async def _start(store: Store, run_id: str, text: str, quota: RunQuota | None = None) -> RunStart:
    message = AgentMessage.user(text, id=f"m-{run_id}")
    return await store.start_run(
        run_id, [message], thread_id="t1", owner="proc", quota=quota, **OWNER
    )


async def _texts(store: Store) -> list[str]:
    found = await store.get_messages("t1", **OWNER)
    return [m.text for m in found if isinstance(m, AgentMessage)]


def _event(event_id: int, run_id: str) -> StoredEvent:
    return StoredEvent("t1", event_id, run_id, "run-start", {"type": "run-start"}, 1)


def _snapshot(run_id: str, first: int, last: int) -> RunSnapshot:
    return RunSnapshot("t1", run_id, first, last, {"assistant": {"createdAt": 1}}, 1)


async def test_a_start_claims_the_thread_opens_the_run_and_stores_its_message(
    store: Store,
) -> None:
    started = await store.start_run(
        "r1",
        [AgentMessage.user("hi", id="m1")],
        thread_id="t1",
        owner="proc",
        agent_id="assistant",
        metadata={"agent": "assistant"},
        **OWNER,
    )
    assert (started.run.run_id, started.run.status, started.run.lease_epoch) == ("r1", "running", 1)
    assert (started.run.lease_owner, started.run.agent_id) == ("proc", "assistant")
    assert (started.thread.id, started.thread.metadata) == ("t1", {"agent": "assistant"})
    assert (started.last_event_id, started.last_snapshot_event_id) == (0, 0)
    assert await store.get_active_run("t1") == started.run
    assert await store.get_thread("t1", **OWNER) == started.thread
    assert await _texts(store) == ["hi"]


async def test_a_start_says_where_the_log_and_its_snapshots_end(store: Store) -> None:
    await _start(store, "r1", "one")
    await store.append_events("t1", [_event(1, "r1"), _event(2, "r1"), _event(3, "r1")])
    await store.close_run("r1", "completed", epoch=1, snapshot=_snapshot("r1", 1, 2))
    started = await store.start_run(
        "r2", [AgentMessage.user("two")], thread_id="t1", owner="proc", **OWNER
    )
    assert (started.last_event_id, started.last_snapshot_event_id) == (3, 2)


async def test_a_start_logs_its_opening_events_right_above_the_logs_end(store: Store) -> None:
    await _start(store, "r1", "one")
    await store.append_events("t1", [_event(1, "r1"), _event(2, "r1")])
    await store.close_run("r1", "completed", epoch=1)
    opening = [OpeningEvent("run-start", {"type": "run-start", "runId": "r2", "n": [1, "é"]})]
    started = await store.start_run(
        "r2", [AgentMessage.user("two")], thread_id="t1", owner="proc", opening=opening, **OWNER
    )
    stored = StoredEvent("t1", 3, "r2", "run-start", opening[0].data, started.run.started_at)
    assert started.last_event_id == 2
    assert started.opening == (stored,)
    assert await store.read_events("t1", after_id=2) == [stored]
    assert await store.read_event_json("t1", after_id=2) == [(3, json_text(opening[0].data))]


async def test_a_start_keeps_the_threads_metadata_when_given_none(store: Store) -> None:
    await store.save_thread("t1", metadata={"keep": 1}, **OWNER)
    started = await _start(store, "r1", "hi")
    assert started.thread.metadata == {"keep": 1}


async def test_a_refused_start_stores_nothing(store: Store) -> None:
    await _start(store, "r1", "first")
    await store.save_thread("t1", metadata={"agent": "a"}, **OWNER)
    with pytest.raises(RunConflict):
        await store.start_run(
            "r2",
            [AgentMessage.user("second")],
            thread_id="t1",
            owner="proc",
            metadata={"agent": "b"},
            opening=[OpeningEvent("run-start", {"type": "run-start"})],
            **OWNER,
        )
    assert await store.get_run("r2") is None
    assert await store.read_events("t1") == []
    assert await _texts(store) == ["first"]
    thread = await store.get_thread("t1", **OWNER)
    assert thread is not None
    assert thread.metadata == {"agent": "a"}


async def test_a_start_over_quota_stores_nothing(store: Store) -> None:
    await store.start_run("r1", [], thread_id="t0", owner="proc", **OWNER)
    with pytest.raises(RunQuotaReached):
        await _start(store, "r2", "hi", quota=RunQuota(tenant_runs=1))
    assert await store.get_run("r2") is None
    assert await store.get_thread("t1", **OWNER) is None


async def test_a_start_on_another_owners_thread_stores_nothing(store: Store) -> None:
    await store.save_thread("t1", tenant_id="acme", resource_id="bob")
    with pytest.raises(ThreadOwnershipError):
        await _start(store, "r1", "hi")
    assert await store.get_run("r1") is None
    assert await store.get_messages("t1", tenant_id="acme", resource_id="bob") == []


async def test_a_close_stores_the_runs_snapshot(store: Store) -> None:
    await _start(store, "r1", "hi")
    await store.append_events("t1", [_event(1, "r1"), _event(2, "r1")])
    closed = await store.close_run("r1", "completed", epoch=1, snapshot=_snapshot("r1", 1, 2))
    assert closed.status == "completed"
    assert await store.read_run_snapshots("t1") == [_snapshot("r1", 1, 2)]
    assert await store.last_snapshot_event_id("t1") == 2


async def test_a_refused_close_stores_no_snapshot(store: Store) -> None:
    await _start(store, "r1", "hi")
    await store.take_over("r1", "other")
    with pytest.raises(StaleLease):
        await store.close_run("r1", "completed", epoch=1, snapshot=_snapshot("r1", 1, 2))
    assert await store.read_run_snapshots("t1") == []
    run = await store.get_run("r1")
    assert run is not None
    assert run.is_open


async def test_a_start_holds_the_threads_plan(store: Store) -> None:
    assert (await _start(store, "r1", "one")).plan is None
    await store.close_run("r1", "completed", epoch=1)
    saved = await store.save_plan("t1", {"goal": "ship", "tasks": []}, **OWNER)
    started = await _start(store, "r2", "two")
    assert started.plan == saved


async def test_a_close_stores_the_runs_final_events_with_it(store: Store) -> None:
    await _start(store, "r1", "hi")
    await store.append_events("t1", [_event(1, "r1")])
    finish = StoredEvent("t1", 2, "r1", "run-finish", {"type": "run-finish"}, 1)
    await store.close_run("r1", "completed", epoch=1, final_events=[finish])
    assert [(e.id, e.type) for e in await store.read_events("t1")] == [
        (1, "run-start"),
        (2, "run-finish"),
    ]


async def _with_progress(store: Store) -> None:
    """A run in its durable steps: a progress checkpoint and a tool call in the ledger."""
    await _start(store, "r1", "hi")
    call = ToolCallEntry("c1", "lookup", "settled", {"kind": "success", "output": 1})
    await store.record_progress("r1", [call], epoch=1, state={"status": "running"})


async def test_a_close_forgets_the_runs_progress_and_tool_calls_with_it(store: Store) -> None:
    await _with_progress(store)
    await store.close_run("r1", "completed", epoch=1)
    progress = await store.load_progress("r1")
    assert (progress.state, progress.calls) == (None, {})


async def test_a_close_whose_final_event_reuses_an_id_changes_nothing(store: Store) -> None:
    """Nothing half: a close cut short (here refused by the database) leaves the run open with
    its progress, for whoever takes it over to close; no completed run keeps orphaned rows."""
    await _with_progress(store)
    await store.append_events("t1", [_event(1, "r1")])
    finish = StoredEvent("t1", 1, "r1", "run-finish", {"type": "run-finish"}, 1)
    with pytest.raises(EventIdConflict):
        await store.close_run("r1", "completed", epoch=1, final_events=[finish])
    run = await store.get_run("r1")
    assert run is not None
    assert run.is_open
    assert [e.type for e in await store.read_events("t1")] == ["run-start"]
    progress = await store.load_progress("r1")
    assert progress.state == {"status": "running"}
    assert list(progress.calls) == ["c1"]


async def test_a_refused_close_stores_no_final_event(store: Store) -> None:
    await _start(store, "r1", "hi")
    await store.take_over("r1", "other")
    finish = StoredEvent("t1", 1, "r1", "run-finish", {"type": "run-finish"}, 1)
    with pytest.raises(StaleLease):
        await store.close_run("r1", "completed", epoch=1, final_events=[finish])
    assert await store.read_events("t1") == []
