"""Control from any replica (issue 11 item 3): a cancel sent to a process that does not drive the
run is recorded in the database and sent to the run's owner over the bus; the owner acts on the
message at once, or on its heartbeat when the message was lost; a run whose owner died is ended
``cancelled`` by whoever takes it over. Two run managers on one store, as two replicas."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from service_harness import OWNER, Service, key, service, start_waiting

from blocking_agents import blocking_agents
from postgres_databases import unavailable
from runyard.ids import now_ms
from runyard.service.bus import EventBus, InProcessEventBus, RedisEventBus

Buses = Callable[[], EventBus]
"""A bus for one more replica."""

CANCELLED = {"status": "cancelled", "reason": "user_cancelled"}


@pytest.fixture(params=["sqlite+in-process", "postgresql+redis"])
def replica_db(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str]:
    """Which bus the replicas use, and their database: a SQLite file, or PostgreSQL."""
    if request.param == "sqlite+in-process":
        return "in-process", f"sqlite:///{tmp_path / 'runyard.db'}"
    url: str = request.getfixturevalue("postgresql_server_db")
    return "redis", url


@pytest.fixture
async def replicas_on(replica_db: tuple[str, str]) -> AsyncIterator[tuple[str, Buses]]:
    """The database and a bus maker: one in-process bus shared by every replica, or a Redis
    bus of its own per replica."""
    kind, url = replica_db
    if kind == "in-process":
        shared = InProcessEventBus()
        yield url, lambda: shared
        await shared.close()
        return
    redis_url = os.environ.get("RUNYARD_TEST_REDIS_URL", "")
    if not redis_url:
        unavailable("RUNYARD_TEST_REDIS_URL is not set")
    opened: list[RedisEventBus] = []

    def redis_bus() -> EventBus:
        opened.append(RedisEventBus(redis_url))
        return opened[-1]

    yield url, redis_bus
    for bus in opened:
        await bus.close()


async def finish_of(svc: Service, run_id: str) -> list[dict[str, Any]]:
    return [
        event.payload.model_dump(exclude={"usage"})
        for _, event in await svc.log("t1")
        if event.type == "run-finish" and event.run_id == run_id
    ]


async def test_a_cancel_sent_to_another_replica_reaches_the_owner_over_the_bus(
    replicas_on: tuple[str, Buses],
) -> None:
    url, bus = replicas_on
    started = asyncio.Event()
    async with service(url, blocking_agents(started)) as svc:
        # Leases of 300 s: no heartbeat comes during the test, only the message can act.
        owner = await svc.replica("owner", bus=bus(), lease_seconds=300)
        other = await svc.replica("other", bus=bus(), lease_seconds=300)
        run_id = await start_waiting(owner.runs, started)
        cancelled = await other.runs.cancel(OWNER, "t1")
        finishes = await finish_of(svc, run_id)
        await owner.settle("t1")
        row = await svc.store.get_run(run_id)

    assert cancelled
    assert finishes == [CANCELLED]
    assert row is not None
    # Ended by its owner (no take-over), which read the request from the database.
    assert (row.status, row.lease_epoch) == ("cancelled", 1)
    assert row.cancel_requested_at is not None


async def test_a_lost_cancel_message_only_delays_the_cancel_to_the_owners_heartbeat(
    sqlite_url: str,
) -> None:
    started = asyncio.Event()
    async with service(sqlite_url, blocking_agents(started)) as svc:
        owner = await svc.replica("owner", lease_seconds=0.3)
        # A bus that reaches nobody: the message is lost, the database still has the request.
        deaf = InProcessEventBus()
        other = await svc.replica("other", bus=deaf, lease_seconds=300)
        run_id = await start_waiting(owner.runs, started)
        cancelled = await other.runs.cancel(OWNER, "t1")
        await owner.settle("t1")
        finishes = await finish_of(svc, run_id)
        row = await svc.store.get_run(run_id)
        await deaf.close()

    assert cancelled
    assert finishes == [CANCELLED]
    assert row is not None
    assert (row.status, row.lease_epoch) == ("cancelled", 1)


async def test_a_run_whose_owner_died_with_a_cancel_pending_is_ended_cancelled(
    sqlite_url: str,
) -> None:
    started = asyncio.Event()
    async with service(sqlite_url, blocking_agents(started)) as svc:
        owner = await svc.replica("owner", lease_seconds=300)
        other = await svc.replica("other", lease_seconds=300)
        run_id = await start_waiting(owner.runs, started)
        # As if its process died: nobody renews the lease any more, and it has expired.
        dead = await svc.store.take_over(run_id, "dead-process", lease_until=now_ms() - 1)
        cancelled = await other.runs.cancel(OWNER, "t1")
        finishes = await finish_of(svc, run_id)
        row = await svc.store.get_run(run_id)

    assert cancelled
    assert finishes == [CANCELLED]  # not "server restarted": the user asked for a cancel
    assert row is not None
    assert (row.status, row.lease_epoch) == ("cancelled", dead.lease_epoch + 1)


async def test_the_sweep_ends_a_dead_owners_run_with_a_pending_cancel_as_cancelled(
    db_url: str,
) -> None:
    started = asyncio.Event()
    async with service(db_url, blocking_agents(started)) as svc:
        owner = await svc.replica("owner", lease_seconds=300)
        run_id = await start_waiting(owner.runs, started)
        await svc.store.take_over(run_id, "dead-process", lease_until=now_ms() - 1)
        await svc.store.request_cancel(run_id, at=now_ms())
        swept = await svc.runs.sweep_interrupted()
        finishes = await finish_of(svc, run_id)
        row = await svc.store.get_run(run_id)

    assert swept == [run_id]
    assert finishes == [CANCELLED]
    assert row is not None
    assert row.status == "cancelled"
    assert key("t1") == row.thread_id
