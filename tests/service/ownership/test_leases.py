"""Leases (DESIGN.md §8): every process has its own instance id, renews the leases of the runs
it drives on a heartbeat, stops a run whose lease another process took over, and sweeps only
runs whose lease expired — never a live process's, whatever host it runs on."""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

import pytest
from service_harness import OWNER, Service, key, service

from runyard.ids import now_ms
from runyard.protocol import WireEvent, parse_event
from runyard.service import RESTARTED, LeaseTerms, new_instance_id
from runyard.storage import RunRecord

SLOW = "/delay 50\n" + "word " * 400


async def run_row(svc: Service, run_id: str) -> RunRecord:
    run = await svc.store.get_run(run_id)
    assert run is not None
    return run


async def closed_row(svc: Service, run_id: str) -> RunRecord:
    """The run's row once it is closed, waited for (bounded)."""
    async with asyncio.timeout(20):
        # The close may come from any process: only the database can tell.
        while (run := await run_row(svc, run_id)).is_open:  # noqa: ASYNC110
            await asyncio.sleep(0.02)
    return run


async def first_event(svc: Service, thread_key: str, event_type: str) -> WireEvent:
    """The first event of ``event_type`` of the thread stored under ``thread_key`` (bounded)."""
    async with asyncio.timeout(20), svc.events.reader(thread_key) as reader:
        while True:
            for event in await reader.next(max_wait=1):
                parsed = parse_event(event.json)
                if parsed.type == event_type:
                    return parsed


async def dead_run(svc: Service, run_id: str, *, owner: str, lease_until: int) -> RunRecord:
    """A run row as a process that has since died left it: running, leased until then."""
    await svc.store.save_thread(run_id, tenant_id="acme", resource_id="alice")
    return await svc.store.open_run(
        run_id, thread_id=run_id, tenant_id="acme", owner=owner, lease_until=lease_until
    )


def test_an_instance_id_is_the_configured_one_or_the_host_name_and_random_hex() -> None:
    host = socket.gethostname()
    first, second = new_instance_id(), new_instance_id()

    assert new_instance_id("replica-7") == "replica-7"
    assert first.startswith(f"{host}-")
    assert second.startswith(f"{host}-")
    assert first != second


def test_a_lease_is_renewed_every_third_of_it() -> None:
    terms = LeaseTerms(30)

    assert terms.renew_every == 10
    assert terms.until(1_000) == 31_000
    with pytest.raises(ValueError, match="positive"):
        LeaseTerms(0)


@pytest.mark.slow
async def test_a_live_run_outlives_its_first_lease_and_no_neighbour_sweeps_it(db_url: str) -> None:
    async with service(db_url, lease_seconds=1) as driver, service(db_url) as neighbour:
        await driver.runs.keep_leases()
        run_id = await driver.runs.start(OWNER, "t1", SLOW)
        opened = await run_row(driver, run_id)
        async with asyncio.timeout(20):
            # Renewed past the end of the lease it was opened with (only the database can tell).
            while (await run_row(driver, run_id)).lease_expires_at < opened.lease_expires_at + 900:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        assert now_ms() > opened.lease_expires_at
        swept = await neighbour.runs.sweep_interrupted()
        live = await run_row(driver, run_id)
        assert await driver.runs.cancel(OWNER, "t1")
        finish = await first_event(driver, key("t1"), "run-finish")

    assert swept == []
    assert (live.status, live.lease_owner, live.lease_epoch) == (
        "running",
        driver.runs.instance_id,
        1,
    )
    assert (finish.payload.status, finish.payload.reason) == ("cancelled", "user_cancelled")


@pytest.mark.slow
async def test_a_survivor_settles_a_dead_process_run_once_its_lease_expired(db_url: str) -> None:
    async with service(db_url, lease_seconds=0.3) as survivor:
        await survivor.runs.keep_leases()
        dead = await dead_run(survivor, "run_dead", owner="gone-1", lease_until=now_ms() + 300)
        finish = await first_event(survivor, "run_dead", "run-finish")
        closed = await closed_row(survivor, "run_dead")

    assert finish.payload.model_dump() == {"status": "error", "reason": RESTARTED}
    assert (closed.status, closed.lease_epoch) == ("interrupted", 2)
    assert closed.finished_at is not None
    assert closed.finished_at >= dead.lease_expires_at


async def test_a_run_taken_over_by_another_process_stops_here_without_ending_it(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with service(sqlite_url, lease_seconds=0.3) as svc:
        await svc.runs.keep_leases()
        run_id = await svc.runs.start(OWNER, "t1", SLOW)
        await first_event(svc, key("t1"), "reasoning-delta")
        taken = await svc.store.take_over(run_id, "another-process")
        await svc.settle("t1")
        after = await run_row(svc, run_id)
        types = await svc.types("t1")

    assert "run-finish" not in types
    assert after == taken  # never closed, renewed or written by the process that lost it
    assert "took its lease over" in caplog.text
    # runyard's own loggers: asyncio's "never retrieved" for another test's cut asyncpg
    # connection may be collected (and logged) on this worker while this test runs.
    assert not [
        r for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("runyard")
    ]


async def test_a_restart_with_the_same_instance_id_settles_its_previous_lifes_runs(
    sqlite_url: str,
) -> None:
    async with service(sqlite_url, instance="replica-1") as first:
        later = now_ms() + 60_000
        await dead_run(first, "run_mine", owner="replica-1", lease_until=later)
        await dead_run(first, "run_theirs", owner="replica-2", lease_until=later)
    async with service(sqlite_url, instance="replica-1") as restarted:
        swept = await restarted.runs.keep_leases()
        theirs = await run_row(restarted, "run_theirs")
        types = [parse_event(e.json).type for e in await restarted.events.read("run_mine")]

    assert swept == ["run_mine"]
    assert types == ["run-finish"]
    assert (theirs.is_open, theirs.lease_epoch) == (True, 1)


async def test_leases_are_kept_from_start_up_on_not_after_the_first_run(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "t1", SLOW)
        with pytest.raises(RuntimeError, match="before the first run"):
            await svc.runs.keep_leases()
        await svc.runs.cancel(OWNER, "t1")


async def test_a_failed_start_the_store_would_not_close_is_closed_by_a_later_beat(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with service(sqlite_url, lease_seconds=0.3) as svc:
        await svc.runs.keep_leases()
        store, close_run = svc.store, svc.store.close_run

        def launch_fails(*args: Any, **kwargs: Any) -> None:
            # The start stored everything in one write: what can fail after it is the launch.
            raise OSError("the disk is full")

        async def close_fails_once(*args: Any, **kwargs: Any) -> RunRecord:
            monkeypatch.setattr(store, "close_run", close_run)
            raise OSError("the disk is still full")

        monkeypatch.setattr(svc.runs.telemetry, "of", launch_fails)
        monkeypatch.setattr(store, "close_run", close_fails_once)
        with pytest.raises(OSError, match="disk is full"):
            await svc.runs.start(OWNER, "t1", "hello")
        (run,) = await store.list_open_runs()
        closed = await closed_row(svc, run.run_id)
        log = [e for _, e in await svc.log("t1")]

    assert (closed.status, closed.reason) == ("failed", "the run could not start: the disk is full")
    # Its start logged its run-start: its clients see it end.
    assert [(e.type, e.run_id) for e in log] == [
        ("run-start", run.run_id),
        ("run-finish", run.run_id),
    ]
