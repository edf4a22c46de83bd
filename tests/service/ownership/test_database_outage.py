"""A run survives its database going away: PostgreSQL (a cluster of the test's own, never the
shared one) is stopped while the run's tool is running and started again.

A short outage is waited out where the connection is taken (``storage.sql.engine``): the run
goes on as if nothing happened. One longer than that wait stops the run's driver — not the run:
it is carried on from its last durable step once the database answers again, never ended in
``error``. Either way every event is logged once and the tool ran once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from service_harness import OWNER, Service, key, service
from test_takeover import FIRST, Tools, as_seen, replica

from private_postgres import PrivatePostgres, private_postgres
from runyard.service.threads.history import fold_runs
from runyard.storage.sql import engine
from runyard.testing import text

LEASE = 1.5


@pytest.fixture(scope="module")
def own_postgres() -> Iterator[PrivatePostgres]:
    with private_postgres() as server:
        yield server


async def outage_while_the_tool_runs(
    svc: Service, tools: Tools, postgres: PrivatePostgres, thread: str
) -> str:
    """Start a run, stop the database while its tool runs, let the tool return into the
    outage; the run's id. The database is still down."""
    run_id = await svc.runs.start(OWNER, thread, "charge and look")
    await asyncio.wait_for(tools.blocked.wait(), 20)
    await asyncio.to_thread(postgres.stop)
    tools.release.set()
    return run_id


async def check_completed_once(svc: Service, thread: str, run_id: str, tools: Tools) -> None:
    row = await svc.store.get_run(run_id)
    assert row is not None
    assert row.status == "completed"
    log = await svc.log(thread)
    assert len({i for i, _ in log}) == len(log)
    seen = [e for _, e in as_seen(log)]
    assert [e.type for e in seen].count("run-finish") == 1
    assert tools.done["charge"] == 1
    (history,) = fold_runs(await svc.store.read_events(key(thread)))
    assert history.assistant["content"] == "Let me charge and look.All done."


async def test_a_short_outage_is_waited_out(own_postgres: PrivatePostgres) -> None:
    tools = Tools()
    turns = [FIRST, text("All done.")]
    async with service(own_postgres.url, replica(tools, turns), lease_seconds=LEASE) as svc:
        await svc.runs.keep_leases()
        run_id = await outage_while_the_tool_runs(svc, tools, own_postgres, "short")
        await asyncio.to_thread(own_postgres.start)
        await svc.settle("short")
        await check_completed_once(svc, "short", run_id, tools)
    assert tools.done == {"charge": 1, "lookup": 1}


async def test_a_longer_outage_stops_the_driver_and_the_run_is_carried_on(
    own_postgres: PrivatePostgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "RECONNECT_SECONDS", 0.2)
    tools = Tools()
    # The tool's outcome is written with the events that follow it, not before the run goes
    # on: the stopped driver may have asked the model for its next turn already, and the run
    # carried on asks again (a model call in flight when a driver stops is made again).
    turns = [FIRST, text("All done."), text("All done.")]
    async with service(own_postgres.url, replica(tools, turns), lease_seconds=LEASE) as svc:
        await svc.runs.keep_leases()
        run_id = await outage_while_the_tool_runs(svc, tools, own_postgres, "long")
        first = svc.runs._runs[key("long")]
        assert first.task is not None
        await asyncio.wait_for(asyncio.gather(first.task, return_exceptions=True), 20)
        await asyncio.to_thread(own_postgres.start)
        async with asyncio.timeout(20):
            # Carried on by the next heartbeat: nothing announces it but the run's row.
            while (row := await svc.store.get_run(run_id)) is None or row.is_open:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        await svc.settle("long")
        assert row.lease_epoch > first.epoch
        await check_completed_once(svc, "long", run_id, tools)
