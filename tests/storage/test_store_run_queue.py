"""The ``RunQueue`` part: a run held under a lease is queued for a worker, and of racing claimers
exactly one gets each queued run, oldest first, at the next epoch. Revision 0009 counts queued
runs as open, on a database upgraded from 0008 as on a new one."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from store_parts import assert_implements

from postgres_databases import private_database
from runyard.storage import (
    RunConflict,
    RunLedger,
    RunQueue,
    RunQuota,
    RunQuotaReached,
    StaleLease,
    open_store,
)
from runyard.storage.migrations import upgrade_to
from runyard.storage.sql.engine import create_engine, schema_write
from runyard.storage.urls import parse_database_url

NOW = 1_800_000_000_000


class Queue(RunLedger, RunQueue):
    """What these tests ask of a store."""


async def _queued(store: Queue, run_id: str) -> None:
    await store.open_run(run_id, thread_id=f"thread-{run_id}", tenant_id="acme", owner="api")
    await store.queue_run(run_id, "start", epoch=1)


async def test_every_backend_is_a_run_queue(store: Queue) -> None:
    assert_implements(store, RunQueue)


async def test_a_queued_run_is_open_and_keeps_its_thread(store: Queue) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="api")

    queued = await store.queue_run("r1", "resume", epoch=1, request_id="cr_1")

    assert (queued.status, queued.is_open, queued.lease_epoch) == ("queued", True, 1)
    assert (queued.queued_work, queued.queued_request_id) == ("resume", "cr_1")
    assert queued.queued_at is not None
    assert await store.get_active_run("t1") == queued
    with pytest.raises(RunConflict):
        await store.open_run("r2", thread_id="t1", tenant_id="acme", owner="api")
    assert await store.list_expired_runs(NOW * 2) == []  # nobody drives it: it cannot expire


async def test_only_the_current_epoch_queues_a_run(store: Queue) -> None:
    await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="api")
    await store.take_over("r1", "other")

    with pytest.raises(StaleLease):
        await store.queue_run("r1", "start", epoch=1)
    await store.close_run("r1", "completed", epoch=2)
    with pytest.raises(StaleLease):
        await store.queue_run("r1", "start", epoch=2)


async def test_a_claim_takes_the_oldest_queued_runs_at_the_next_epoch(store: Queue) -> None:
    for run_id in ("first", "second", "third"):
        await _queued(store, run_id)
    await store.open_run("running", thread_id="t-running", tenant_id="acme", owner="api")

    claimed = await store.claim_queued_runs("worker-1", limit=2, lease_until=NOW)
    rest = await store.claim_queued_runs("worker-2", limit=5, lease_until=NOW)

    assert [r.run_id for r in claimed] == ["first", "second"]
    assert [r.run_id for r in rest] == ["third"]
    assert {(r.status, r.lease_owner, r.lease_epoch, r.lease_expires_at) for r in claimed} == {
        ("running", "worker-1", 2, NOW)
    }
    assert claimed[0].queued_work == "start"
    assert await store.get_run("first") == claimed[0]
    assert await store.claim_queued_runs("worker-3", limit=5, lease_until=NOW) == []


async def test_racing_claimers_each_get_different_runs(store: Queue) -> None:
    for i in range(12):
        await _queued(store, f"r{i:02}")

    claims = await asyncio.gather(
        *(store.claim_queued_runs(f"w{i}", limit=3, lease_until=NOW) for i in range(6))
    )

    taken = [run.run_id for claim in claims for run in claim]
    assert sorted(taken) == [f"r{i:02}" for i in range(12)]
    assert all(len(claim) <= 3 for claim in claims)


async def test_a_queued_run_counts_towards_the_running_quota(store: Queue) -> None:
    await _queued(store, "r1")
    with pytest.raises(RunQuotaReached):
        await store.open_run(
            "r2", thread_id="t2", tenant_id="acme", owner="api", quota=RunQuota(tenant_runs=1)
        )


@pytest.fixture
def empty_database_url(backend_kind: str, tmp_path: Path) -> Iterator[str]:
    """A database no store has touched yet: a new SQLite file, or a new PostgreSQL database."""
    if backend_kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_migration")


@pytest.mark.backends("sqlite", "postgresql")
async def test_the_upgrade_to_0009_keeps_open_runs_and_one_per_thread_with_queued(
    empty_database_url: str,
) -> None:
    url = parse_database_url(empty_database_url).sqlalchemy_url
    assert url is not None
    engine = create_engine(url)
    try:
        async with schema_write(engine) as conn:
            await conn.run_sync(upgrade_to, "0008")
            await conn.execute(text(_OLD_RUNS))
    finally:
        await engine.dispose()
    store = await open_store(empty_database_url, vectors="exact")
    try:
        old = await store.get_run("old_open")
        assert old is not None
        assert (old.status, old.queued_work, old.queued_at) == ("running", None, None)
        await store.queue_run("old_open", "recover", epoch=1)
        with pytest.raises(RunConflict):
            await store.open_run("new", thread_id="t2", tenant_id="acme", owner="api")
        claimed = await store.claim_queued_runs("worker", limit=1, lease_until=NOW)
    finally:
        await store.close()
    assert [(r.run_id, r.queued_work) for r in claimed] == [("old_open", "recover")]


_OLD_RUNS = """
INSERT INTO runs (run_id, thread_id, tenant_id, status, lease_owner, lease_epoch, reason,
                  started_at, finished_at, lease_expires_at)
VALUES ('old_open', 't2', 'acme', 'running', 'host/1', 1, NULL, 600, NULL, 700)
"""
