"""Runs: one open run per thread (decided by the store), leases fenced by epochs."""

from __future__ import annotations

import asyncio

import pytest

from runyard.storage import RunConflict, RunNotFound, RunRecord, StaleLease, StorageError, Store


async def test_opening_a_run_starts_its_lease_at_epoch_one(store: Store) -> None:
    run = await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="proc-a")
    assert (run.status, run.lease_owner, run.lease_epoch, run.is_open) == (
        "running",
        "proc-a",
        1,
        True,
    )
    assert await store.get_run("r1") == run
    assert await store.get_active_run("t1") == run
    assert await store.get_run("missing") is None


async def test_a_second_open_run_on_the_thread_conflicts(store: Store) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    with pytest.raises(RunConflict):
        await store.open_run("r2", thread_id="t1", tenant_id="acme", owner="b")
    await store.open_run("r3", thread_id="t2", tenant_id="acme", owner="b")


async def test_a_run_id_is_used_once(store: Store) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    await store.close_run("r1", "completed", epoch=1)
    with pytest.raises(StorageError, match="already taken"):
        await store.open_run("r1", thread_id="t2", tenant_id="acme", owner="a")


async def test_a_suspended_run_still_blocks_the_thread(store: Store) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a", status="suspended")
    with pytest.raises(RunConflict):
        await store.open_run("r2", thread_id="t1", tenant_id="acme", owner="b")


async def test_racing_opens_have_exactly_one_winner(store: Store) -> None:
    async def attempt(i: int) -> str:
        try:
            await store.open_run(f"r{i}", thread_id="t1", tenant_id="acme", owner=f"p{i}")
        except RunConflict:
            return "conflict"
        return "won"

    outcomes = await asyncio.gather(*(attempt(i) for i in range(8)))
    assert sorted(outcomes) == ["conflict"] * 7 + ["won"]


async def test_closing_frees_the_thread_for_a_new_run(store: Store) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    closed = await store.close_run("r1", "completed", epoch=1, reason="done")
    assert (closed.status, closed.reason, closed.is_open) == ("completed", "done", False)
    assert closed.finished_at is not None
    assert await store.get_active_run("t1") is None
    await store.open_run("r2", thread_id="t1", tenant_id="acme", owner="a")


async def test_status_moves_between_running_and_suspended(store: Store) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    suspended = await store.update_run_status("r1", "suspended", epoch=1)
    assert suspended.status == "suspended"
    running = await store.update_run_status("r1", "running", epoch=1)
    assert running.status == "running"
    with pytest.raises(ValueError, match="open"):
        await store.update_run_status("r1", "completed", epoch=1)
    with pytest.raises(ValueError, match="final"):
        await store.close_run("r1", "running", epoch=1)


async def test_take_over_fences_the_previous_owner(store: Store) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    taken = await store.take_over("r1", "b")
    assert (taken.lease_owner, taken.lease_epoch) == ("b", 2)
    with pytest.raises(StaleLease):
        await store.update_run_status("r1", "suspended", epoch=1)
    with pytest.raises(StaleLease):
        await store.close_run("r1", "failed", epoch=1)
    closed = await store.close_run("r1", "completed", epoch=2)
    assert closed.lease_owner == "b"


async def test_closed_runs_reject_every_write(store: Store) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    await store.close_run("r1", "cancelled", epoch=1, reason="user_cancelled")
    with pytest.raises(StaleLease):
        await store.close_run("r1", "completed", epoch=1)
    with pytest.raises(StaleLease):
        await store.take_over("r1", "b")
    with pytest.raises(RunNotFound):
        await store.update_run_status("missing", "running", epoch=1)


async def test_open_runs_are_listed_oldest_first_per_tenant(store: Store) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    await store.open_run("r2", thread_id="t2", tenant_id="globex", owner="a", status="suspended")
    await store.open_run("r3", thread_id="t3", tenant_id="acme", owner="a")
    await store.close_run("r3", "failed", epoch=1)
    assert [r.run_id for r in await store.list_open_runs()] == ["r1", "r2"]
    assert [r.run_id for r in await store.list_open_runs(tenant_id="globex")] == ["r2"]


async def test_an_open_racing_the_close_of_the_threads_run_opens_or_conflicts(
    store: Store,
) -> None:
    """Never "run id taken": the open run closing under the insert is no error of its own."""
    await store.open_run("r0", thread_id="t", tenant_id="acme", owner="a")
    for i in range(1, 40):
        closed, opened = await asyncio.gather(
            store.close_run(f"r{i - 1}", "completed", epoch=1),
            store.open_run(f"r{i}", thread_id="t", tenant_id="acme", owner="a"),
            return_exceptions=True,
        )
        assert isinstance(closed, RunRecord)
        assert isinstance(opened, RunRecord | RunConflict), repr(opened)
        if isinstance(opened, RunConflict):
            await store.open_run(f"r{i}", thread_id="t", tenant_id="acme", owner="a")
    run = await store.get_run("r39")
    assert run is not None
    assert run.is_open
