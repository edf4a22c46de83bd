"""The ``RunLedger`` part: one open run per thread (decided by the store), leases fenced by
epochs, leases that expire unless their owner renews them, and take-overs of expired leases that
one sweeper wins."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from store_parts import assert_implements

from postgres_databases import private_database
from runyard.ids import now_ms
from runyard.storage import (
    RunConflict,
    RunLedger,
    RunNotFound,
    RunRecord,
    StaleLease,
    StorageError,
    open_store,
)
from runyard.storage.migrations import upgrade_to
from runyard.storage.sql.engine import create_engine, schema_write
from runyard.storage.urls import parse_database_url

NOW = 1_800_000_000_000
"""A fixed "now" (epoch ms) for lease arithmetic: leases are compared with it, never the clock."""


async def test_every_backend_is_a_run_ledger(store: RunLedger) -> None:
    assert_implements(store, RunLedger)


async def test_opening_a_run_starts_its_lease_at_epoch_one(store: RunLedger) -> None:
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


async def test_a_second_open_run_on_the_thread_conflicts(store: RunLedger) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    with pytest.raises(RunConflict):
        await store.open_run("r2", thread_id="t1", tenant_id="acme", owner="b")
    await store.open_run("r3", thread_id="t2", tenant_id="acme", owner="b")


async def test_a_run_id_is_used_once(store: RunLedger) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    await store.close_run("r1", "completed", epoch=1)
    with pytest.raises(StorageError, match="already taken"):
        await store.open_run("r1", thread_id="t2", tenant_id="acme", owner="a")


async def test_a_suspended_run_still_blocks_the_thread(store: RunLedger) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a", status="suspended")
    with pytest.raises(RunConflict):
        await store.open_run("r2", thread_id="t1", tenant_id="acme", owner="b")


async def test_racing_opens_have_exactly_one_winner(store: RunLedger) -> None:
    async def attempt(i: int) -> str:
        try:
            await store.open_run(f"r{i}", thread_id="t1", tenant_id="acme", owner=f"p{i}")
        except RunConflict:
            return "conflict"
        return "won"

    outcomes = await asyncio.gather(*(attempt(i) for i in range(8)))
    assert sorted(outcomes) == ["conflict"] * 7 + ["won"]


async def test_closing_frees_the_thread_for_a_new_run(store: RunLedger) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    closed = await store.close_run("r1", "completed", epoch=1, reason="done")
    assert (closed.status, closed.reason, closed.is_open) == ("completed", "done", False)
    assert closed.finished_at is not None
    assert await store.get_active_run("t1") is None
    await store.open_run("r2", thread_id="t1", tenant_id="acme", owner="a")


async def test_status_moves_between_running_and_suspended(store: RunLedger) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    suspended = await store.update_run_status("r1", "suspended", epoch=1)
    assert suspended.status == "suspended"
    running = await store.update_run_status("r1", "running", epoch=1)
    assert running.status == "running"
    with pytest.raises(ValueError, match="open"):
        await store.update_run_status("r1", "completed", epoch=1)
    with pytest.raises(ValueError, match="final"):
        await store.close_run("r1", "running", epoch=1)


async def test_take_over_fences_the_previous_owner(store: RunLedger) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    taken = await store.take_over("r1", "b")
    assert (taken.lease_owner, taken.lease_epoch) == ("b", 2)
    with pytest.raises(StaleLease):
        await store.update_run_status("r1", "suspended", epoch=1)
    with pytest.raises(StaleLease):
        await store.close_run("r1", "failed", epoch=1)
    closed = await store.close_run("r1", "completed", epoch=2)
    assert closed.lease_owner == "b"


async def test_take_over_at_an_epoch_lets_exactly_one_of_its_readers_win(
    store: RunLedger,
) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a", status="suspended")
    taken = await store.take_over("r1", "b", epoch=1)
    assert (taken.lease_owner, taken.lease_epoch, taken.status) == ("b", 2, "suspended")
    with pytest.raises(StaleLease):
        await store.take_over("r1", "c", epoch=1)
    assert (await store.get_run("r1")).lease_owner == "b"  # type: ignore[union-attr]


async def test_closed_runs_reject_every_write(store: RunLedger) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    await store.close_run("r1", "cancelled", epoch=1, reason="user_cancelled")
    with pytest.raises(StaleLease):
        await store.close_run("r1", "completed", epoch=1)
    with pytest.raises(StaleLease):
        await store.take_over("r1", "b")
    with pytest.raises(RunNotFound):
        await store.update_run_status("missing", "running", epoch=1)


async def test_open_runs_are_listed_oldest_first_per_tenant(store: RunLedger) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    await store.open_run("r2", thread_id="t2", tenant_id="globex", owner="a", status="suspended")
    await store.open_run("r3", thread_id="t3", tenant_id="acme", owner="a")
    await store.close_run("r3", "failed", epoch=1)
    assert [r.run_id for r in await store.list_open_runs()] == ["r1", "r2"]
    assert [r.run_id for r in await store.list_open_runs(tenant_id="globex")] == ["r2"]


async def test_a_lease_lasts_until_its_expiry_or_thirty_seconds(store: RunLedger) -> None:
    before = now_ms()
    default = await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="a")
    given = await store.open_run("r2", thread_id="t2", tenant_id="acme", owner="a", lease_until=NOW)
    taken = await store.take_over("r2", "b", lease_until=NOW + 5)

    assert before + 30_000 <= default.lease_expires_at <= now_ms() + 30_000
    assert given.lease_expires_at == NOW
    assert (taken.lease_owner, taken.lease_epoch, taken.lease_expires_at) == ("b", 2, NOW + 5)
    assert await store.get_run("r2") == taken


async def test_renewing_extends_every_open_run_the_owner_holds_and_nothing_else(
    store: RunLedger,
) -> None:
    await _open(store, "mine", owner="a")
    await _open(store, "waiting", owner="a", status="suspended")
    await _open(store, "taken", owner="a")
    await _open(store, "done", owner="a")
    await _open(store, "theirs", owner="b")
    await store.take_over("taken", "b", lease_until=NOW)
    await store.close_run("done", "completed", epoch=1)

    renewed = await store.renew_leases("a", NOW + 60_000)

    assert renewed == ["mine", "waiting"]
    expiries = {r: (await _get(store, r)).lease_expires_at for r in ("mine", "waiting")}
    assert expiries == {"mine": NOW + 60_000, "waiting": NOW + 60_000}
    assert (await _get(store, "theirs")).lease_expires_at == NOW
    assert (await _get(store, "taken")).lease_epoch == 2
    assert await store.renew_leases("nobody", NOW) == []


async def test_only_running_runs_whose_lease_ended_are_expired(store: RunLedger) -> None:
    await _open(store, "late", owner="a", until=NOW - 10)
    await _open(store, "just", owner="b", until=NOW)
    await _open(store, "live", owner="c", until=NOW + 1)
    await _open(store, "waiting", owner="d", until=NOW - 10, status="suspended")
    await _open(store, "closed", owner="e", until=NOW - 10)
    await store.close_run("closed", "failed", epoch=1)

    expired = await store.list_expired_runs(NOW)

    assert sorted(r.run_id for r in expired) == ["just", "late"]


async def test_lease_owners_are_those_of_running_runs_whose_lease_has_not_ended(
    store: RunLedger,
) -> None:
    await _open(store, "live", owner="a", until=NOW + 1)
    await _open(store, "also-live", owner="a", until=NOW + 5)
    await _open(store, "other", owner="b", until=NOW + 1)
    await _open(store, "lapsed", owner="c", until=NOW)
    await _open(store, "waiting", owner="d", until=NOW + 1, status="suspended")
    await _open(store, "closed", owner="e", until=NOW + 1)
    await store.close_run("closed", "completed", epoch=1)

    assert sorted(await store.lease_owners(NOW)) == ["a", "b"]


async def test_expiring_an_owners_leases_ends_them_now_and_only_theirs(store: RunLedger) -> None:
    await _open(store, "dead-1", owner="a", until=NOW + 30_000)
    await _open(store, "dead-2", owner="a", until=NOW + 30_000)
    await _open(store, "waiting", owner="a", until=NOW + 30_000, status="suspended")
    await _open(store, "alive", owner="b", until=NOW + 30_000)

    assert sorted(await store.expire_leases("a", NOW)) == ["dead-1", "dead-2"]

    assert sorted(r.run_id for r in await store.list_expired_runs(NOW)) == ["dead-1", "dead-2"]
    assert (await _get(store, "dead-1")).lease_epoch == 1  # still its owner's until swept
    assert (await _get(store, "waiting")).lease_expires_at == NOW + 30_000
    assert await store.expire_leases("a", NOW) == []
    assert await store.lease_owners(NOW) == ["b"]


async def test_an_expired_lease_is_taken_over_at_the_next_epoch(store: RunLedger) -> None:
    await _open(store, "dead", owner="a", until=NOW - 1)
    taken = await store.take_over_expired("dead", "sweeper", now=NOW, lease_until=NOW + 9)

    assert taken is not None
    assert (taken.lease_owner, taken.lease_epoch, taken.lease_expires_at) == ("sweeper", 2, NOW + 9)
    assert taken.status == "running"
    with pytest.raises(StaleLease):
        await store.close_run("dead", "failed", epoch=1)
    assert await store.renew_leases("a", NOW + 60_000) == []
    assert await store.list_expired_runs(NOW) == []


async def test_a_live_suspended_closed_or_unknown_run_is_not_taken_as_expired(
    store: RunLedger,
) -> None:
    await _open(store, "live", owner="a", until=NOW + 1)
    await _open(store, "waiting", owner="a", until=NOW - 1, status="suspended")
    await _open(store, "closed", owner="a", until=NOW - 1)
    await store.close_run("closed", "completed", epoch=1)

    for run_id in ("live", "waiting", "closed", "unknown"):
        assert await store.take_over_expired(run_id, "b", now=NOW, lease_until=NOW + 9) is None
    assert (await _get(store, "live")).lease_owner == "a"
    assert (await _get(store, "waiting")).lease_epoch == 1


async def test_a_renewed_lease_is_no_longer_expired(store: RunLedger) -> None:
    await _open(store, "r1", owner="a", until=NOW - 1)
    await store.renew_leases("a", NOW + 30_000)

    assert await store.take_over_expired("r1", "b", now=NOW, lease_until=NOW + 9) is None


async def test_racing_sweepers_take_an_expired_run_exactly_once(store: RunLedger) -> None:
    await _open(store, "dead", owner="a", until=NOW - 1)

    taken = await asyncio.gather(
        *(
            store.take_over_expired("dead", f"sweeper-{i}", now=NOW, lease_until=NOW + 9)
            for i in range(8)
        )
    )

    (winner,) = [t for t in taken if t is not None]
    assert winner.lease_epoch == 2
    assert (await _get(store, "dead")).lease_owner == winner.lease_owner


async def test_an_open_racing_the_close_of_the_threads_run_opens_or_conflicts(
    store: RunLedger,
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
    assert (await _get(store, "r39")).is_open


@pytest.fixture
def empty_database_url(backend_kind: str, tmp_path: Path) -> Iterator[str]:
    """A database no store has touched yet: a new SQLite file, or a new PostgreSQL database."""
    if backend_kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_migration")


@pytest.mark.backends("sqlite", "postgresql")
async def test_the_upgrade_gives_open_runs_an_expired_lease_and_closed_ones_their_end(
    empty_database_url: str,
) -> None:
    """Revision 0002 backfills ``lease_expires_at``: nothing of the old version renews a lease."""
    url = parse_database_url(empty_database_url).sqlalchemy_url
    assert url is not None
    engine = create_engine(url)
    try:
        async with schema_write(engine) as conn:
            await conn.run_sync(upgrade_to, "0001")
            await conn.execute(text(_OLD_RUNS))
    finally:
        await engine.dispose()
    before = now_ms()
    store = await open_store(empty_database_url, vectors="exact")
    try:
        closed, left_open = await _get(store, "old_closed"), await _get(store, "old_open")
        expired = await store.list_expired_runs(now_ms())
    finally:
        await store.close()

    assert closed.lease_expires_at == 1_000
    assert before <= left_open.lease_expires_at <= now_ms()
    assert [r.run_id for r in expired] == ["old_open"]


_OLD_RUNS = """
INSERT INTO runs (run_id, thread_id, tenant_id, status, lease_owner, lease_epoch, reason,
                  started_at, finished_at)
VALUES ('old_closed', 't1', 'acme', 'completed', 'host/1', 1, NULL, 500, 1000),
       ('old_open', 't2', 'acme', 'running', 'host/1', 1, NULL, 600, NULL)
"""


async def test_a_cancel_request_is_recorded_once_on_an_open_run(store: RunLedger) -> None:
    await _open(store, "r1", owner="a")
    await _open(store, "done", owner="a")
    await store.close_run("done", "completed", epoch=1)

    first = await store.request_cancel("r1", at=NOW + 5)
    again = await store.request_cancel("r1", at=NOW + 9)

    assert first is not None
    assert again is not None
    assert (first.cancel_requested_at, again.cancel_requested_at) == (NOW + 5, NOW + 5)
    assert (await _get(store, "r1")).cancel_requested_at == NOW + 5
    assert await store.request_cancel("done", at=NOW) is None
    assert await store.request_cancel("unknown", at=NOW) is None
    assert (await _get(store, "done")).cancel_requested_at is None


async def test_an_owner_lists_only_its_open_runs_with_a_pending_cancel(store: RunLedger) -> None:
    await _open(store, "asked", owner="a")
    await _open(store, "quiet", owner="a")
    await _open(store, "theirs", owner="b")
    await _open(store, "closed", owner="a")
    for run_id in ("asked", "theirs", "closed"):
        await store.request_cancel(run_id, at=NOW)
    await store.close_run("closed", "cancelled", epoch=1)

    assert [r.run_id for r in await store.list_cancel_requested("a")] == ["asked"]
    assert [r.run_id for r in await store.list_cancel_requested("b")] == ["theirs"]
    assert await store.list_cancel_requested("nobody") == []


async def test_a_released_lease_is_expired_at_once_but_stays_its_owners(
    store: RunLedger,
) -> None:
    await _open(store, "r1", owner="a", until=NOW + 60_000)

    released = await store.release_lease("r1", epoch=1, now=NOW)

    run = await _get(store, "r1")
    assert released
    assert (run.status, run.lease_owner, run.lease_epoch) == ("running", "a", 1)
    assert [r.run_id for r in await store.list_expired_runs(NOW)] == ["r1"]
    taken = await store.take_over_expired("r1", "b", now=NOW, lease_until=NOW + 9)
    assert taken is not None
    assert taken.lease_epoch == 2


async def test_only_the_current_epoch_releases_an_open_lease(store: RunLedger) -> None:
    await _open(store, "taken", owner="a", until=NOW + 60_000)
    await store.take_over("taken", "b", lease_until=NOW + 60_000)
    await _open(store, "closed", owner="a", until=NOW + 60_000)
    await store.close_run("closed", "completed", epoch=1)

    assert not await store.release_lease("taken", epoch=1, now=NOW)
    assert not await store.release_lease("closed", epoch=1, now=NOW)
    assert not await store.release_lease("unknown", epoch=1, now=NOW)
    assert (await _get(store, "taken")).lease_expires_at == NOW + 60_000
    assert await store.list_expired_runs(NOW) == []


async def _open(
    store: RunLedger, run_id: str, *, owner: str, until: int = NOW, status: str = "running"
) -> RunRecord:
    assert status in ("running", "suspended")
    return await store.open_run(
        run_id,
        thread_id=f"thread-{run_id}",
        tenant_id="acme",
        owner=owner,
        status="running" if status == "running" else "suspended",
        lease_until=until,
    )


async def _get(store: RunLedger, run_id: str) -> RunRecord:
    run = await store.get_run(run_id)
    assert run is not None
    return run
