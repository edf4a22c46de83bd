"""The ``ToolLedger`` part: progress checkpoints and tool-call rows, fenced by the lease epoch."""

from __future__ import annotations

import pytest
from store_parts import assert_implements

from runyard.storage import (
    LedgerWrite,
    RunNotFound,
    StaleLease,
    Store,
    StoredEvent,
    ToolCallEntry,
    ToolLedger,
)

STATE = {"status": "running", "message_list": {"messages": []}}


def _started(call_id: str) -> ToolCallEntry:
    return ToolCallEntry(call_id, "lookup", "started")


def _settled(call_id: str, output: object) -> ToolCallEntry:
    return ToolCallEntry(call_id, "lookup", "settled", {"kind": "success", "output": output})


async def _open(store: Store, run_id: str = "run-1") -> int:
    run = await store.open_run(run_id, thread_id=f"t-{run_id}", tenant_id="acme", owner="a")
    return run.lease_epoch


async def test_every_backend_is_a_tool_ledger(store: Store) -> None:
    assert_implements(store, ToolLedger)


async def test_progress_and_calls_round_trip(store: Store) -> None:
    epoch = await _open(store)
    assert (await store.load_progress("run-1")).state is None
    await store.record_progress("run-1", [_started("c1"), _started("c2")], epoch=epoch, state=STATE)
    await store.record_progress("run-1", [_settled("c1", {"n": 1})], epoch=epoch)
    progress = await store.load_progress("run-1")
    assert progress.state == STATE
    assert progress.calls == {"c1": _settled("c1", {"n": 1}), "c2": _started("c2")}


async def test_a_started_row_never_replaces_a_settled_one(store: Store) -> None:
    epoch = await _open(store)
    await store.record_progress("run-1", [_settled("c1", "done")], epoch=epoch)
    await store.record_progress("run-1", [_started("c1")], epoch=epoch)
    assert (await store.load_progress("run-1")).calls["c1"].state == "settled"


async def test_the_progress_checkpoint_is_not_the_runs_checkpoint(store: Store) -> None:
    epoch = await _open(store)
    await store.record_progress("run-1", [], epoch=epoch, state=STATE)
    assert await store.load_checkpoint("run-1") is None


async def test_a_superseded_owner_writes_nothing(store: Store) -> None:
    epoch = await _open(store)
    await store.record_progress("run-1", [_started("c1")], epoch=epoch, state=STATE)
    await store.take_over("run-1", "b")
    with pytest.raises(StaleLease):
        await store.record_progress(
            "run-1", [_settled("c1", "late")], epoch=epoch, state={"status": "stale"}
        )
    progress = await store.load_progress("run-1")
    assert progress.state == STATE
    assert progress.calls == {"c1": _started("c1")}


async def test_a_closed_or_unknown_run_takes_no_progress(store: Store) -> None:
    epoch = await _open(store)
    await store.close_run("run-1", "completed", epoch=epoch)
    with pytest.raises(StaleLease):
        await store.record_progress("run-1", [_started("c1")], epoch=epoch)
    with pytest.raises(RunNotFound):
        await store.record_progress("nope", [_started("c1")], epoch=1)


async def test_closing_a_run_forgets_its_progress_and_other_runs_keep_theirs(
    store: Store,
) -> None:
    first, second = await _open(store, "run-1"), await _open(store, "run-2")
    await store.record_progress("run-1", [_started("c1")], epoch=first, state=STATE)
    await store.record_progress("run-2", [_started("c1")], epoch=second, state=STATE)
    await store.close_run("run-1", "completed", epoch=first)
    assert (await store.load_progress("run-1")).state is None
    assert (await store.load_progress("run-1")).calls == {}
    assert (await store.load_progress("run-2")).calls == {"c1": _started("c1")}
    assert (await store.load_progress("run-2")).state == STATE


async def test_a_refused_close_forgets_nothing(store: Store) -> None:
    epoch = await _open(store)
    await store.record_progress("run-1", [_started("c1")], epoch=epoch, state=STATE)
    await store.take_over("run-1", "b")
    with pytest.raises(StaleLease):
        await store.close_run("run-1", "completed", epoch=epoch)
    progress = await store.load_progress("run-1")
    assert (progress.state, progress.calls) == (STATE, {"c1": _started("c1")})


def _event(thread_id: str, event_id: int) -> StoredEvent:
    data = {"type": "tool-result", "payload": {"toolCallId": "c1"}}
    return StoredEvent(thread_id, event_id, "run-1", "tool-result", data, 1)


async def test_settled_calls_are_written_with_a_batch_of_events(store: Store) -> None:
    epoch = await _open(store)
    await store.record_progress("run-1", [_started("c1")], epoch=epoch, state=STATE)
    settled = LedgerWrite("run-1", epoch, (_settled("c1", {"n": 1}),))
    await store.append_events("t-run-1", [_event("t-run-1", 1)], ledger=[settled])
    assert (await store.load_progress("run-1")).calls == {"c1": _settled("c1", {"n": 1})}
    assert [e.id for e in await store.read_events("t-run-1")] == [1]


async def test_a_superseded_owners_batch_with_settled_calls_is_refused_whole(
    store: Store,
) -> None:
    epoch = await _open(store)
    await store.record_progress("run-1", [_started("c1")], epoch=epoch, state=STATE)
    await store.take_over("run-1", "b")
    settled = LedgerWrite("run-1", epoch, (_settled("c1", "late"),))
    with pytest.raises(StaleLease):
        await store.append_events("t-run-1", [_event("t-run-1", 1)], ledger=[settled])
    assert (await store.load_progress("run-1")).calls == {"c1": _started("c1")}
    assert await store.read_events("t-run-1") == []
