"""Servers sharing one database on one host (DESIGN.md §8, issue 7 item 2, issue 11 items 3-4),
as real ``runyard serve`` processes on the demo model: a server that starts, restarts or cannot
bind never touches another live server's run, and a killed server's run is settled by a survivor
once its lease has expired; a delegated sub-agent's question asked on one server is answered on
another; a cancel sent to the server that does not run the thread ends the run; a server stopped
with SIGTERM hands its run over unfinished, to a live neighbour or to its own next start."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from unittest.mock import ANY

import httpx
import pytest
from http_harness import Frame, free_port
from server_process import client_for, frames_until, server, stop

from postgres_databases import private_database, unavailable
from runyard.ids import now_ms
from runyard.storage import RunRecord, open_store

pytestmark = pytest.mark.slow

SLOW = "/delay 50\n" + "word " * 1500
"""A run that streams for minutes (a reasoning delta, then a text delta, per word, 50 ms
apart): it is still live whatever the test does to the other servers, and is cancelled."""

CANCELLED = {"status": "cancelled", "reason": "user_cancelled", "usage": ANY}
RESTARTED = {"status": "error", "reason": "server restarted"}


@dataclass(frozen=True)
class Shared:
    """The database the servers share and the bus settings each one gets."""

    url: str
    env: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="module")
def postgresql_url() -> Iterator[str]:
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_replicas")


@pytest.fixture
def redis_url() -> str:
    url = os.environ.get("RUNYARD_TEST_REDIS_URL", "")
    if not url:
        unavailable("RUNYARD_TEST_REDIS_URL is not set; start Redis as .ci/run does")
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Shared:
    """A SQLite file with the in-process bus on every server, or PostgreSQL with Redis."""
    if request.param == "sqlite":
        return Shared(f"sqlite:///{tmp_path / 'runyard.db'}")
    url: str = request.getfixturevalue("postgresql_url")
    return Shared(url, {"RUNYARD_REDIS_URL": request.getfixturevalue("redis_url")})


async def run_row(url: str, run_id: str, *, closed: bool = False) -> RunRecord:
    """The run's row as the database has it now; with ``closed``, once it is closed."""
    store = await open_store(url, vectors="exact")
    try:
        async with asyncio.timeout(30):
            # Closed by another process: only the database can tell.
            while (run := await store.get_run(run_id)) is not None and closed and run.is_open:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
    finally:
        await store.close()
    assert run is not None
    return run


async def taken_over(url: str, run_id: str) -> tuple[RunRecord, list[str]]:
    """The run's row once another process has taken its lease (epoch 2 or more: a run closed
    by its own server never gets there), and ``logged_finishes`` by then."""
    store = await open_store(url, vectors="exact")
    try:
        async with asyncio.timeout(30):
            # Taken by another process: only the database can tell.
            while (run := await store.get_run(run_id)) is not None and run.lease_epoch < 2:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
    finally:
        await store.close()
    assert run is not None
    return run, await logged_finishes(url, run_id)


async def logged_finishes(url: str, run_id: str) -> list[str]:
    """The reasons of the run's ``run-finish`` events in its thread's log."""
    store = await open_store(url, vectors="exact")
    try:
        run = await store.get_run(run_id)
        assert run is not None
        logged = await store.read_events(run.thread_id, after_id=0)
    finally:
        await store.close()
    return [
        e.data["payload"].get("reason", "")
        for e in logged
        if e.type == "run-finish" and e.run_id == run_id
    ]


async def start_slow_run(client: httpx.AsyncClient, thread: str) -> str:
    """POST the slow message and wait until its run streams; the run's id."""
    response = await client.post(f"/v1/chat/{thread}", json={"message": SLOW})
    assert response.status_code == 200, response.text
    await frames_until(client, thread, "reasoning-delta")
    run_id: str = response.json()["runId"]
    return run_id


def finishes(frames: list[Frame]) -> list[dict[str, object]]:
    return [f.data["payload"] for f in frames if f.data and f.data["type"] == "run-finish"]


@pytest.fixture
def thread() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


async def test_a_server_that_starts_restarts_or_cannot_bind_leaves_a_live_run_alone(
    shared: Shared, thread: str
) -> None:
    port_a, port_b = free_port(), free_port()
    with server(shared.url, port_a, **shared.env):
        async with client_for(port_a) as client_a:
            run_id = await start_slow_run(client_a, thread)
            finish = asyncio.create_task(frames_until(client_a, thread, "run-finish", within=240))
            with server(shared.url, port_a, **shared.env) as same_port:
                bound_twice = await asyncio.to_thread(same_port.wait, 60)
            with server(shared.url, port_b, **shared.env) as neighbour:
                async with client_for(port_b):
                    pass
                await stop(neighbour)
            with server(shared.url, port_b, **shared.env):
                async with client_for(port_b):
                    live = await run_row(shared.url, run_id)
            assert (live.status, live.lease_epoch) == ("running", 1)
            cancelled = await client_a.post(f"/v1/chat/{thread}/cancel")
            frames = await finish

    assert bound_twice != 0  # "address already in use"
    assert cancelled.status_code == 200
    assert finishes(frames) == [CANCELLED]
    assert [f.id for f in frames] == list(range(1, len(frames) + 1))


async def test_restarting_one_of_three_replicas_never_disturbs_a_live_run_on_another(
    postgresql_url: str, redis_url: str, thread: str
) -> None:
    env = {"RUNYARD_REDIS_URL": redis_url}
    url, (port_a, port_b, port_c) = postgresql_url, [free_port() for _ in range(3)]
    with server(url, port_a, **env), server(url, port_b, **env), server(url, port_c, **env) as c:
        async with client_for(port_a) as client_a, client_for(port_b) as client_b:
            async with client_for(port_c):
                run_id = await start_slow_run(client_a, thread)
            # Any replica serves the thread's events (Redis wakes it); this one watches.
            finish = asyncio.create_task(frames_until(client_b, thread, "run-finish", within=240))
            await stop(c)
            with server(url, port_c, **env) as restarted:
                async with client_for(port_c) as client_c:
                    status = (await client_c.get(f"/v1/threads/{thread}/status")).json()
                    still_up = restarted.poll() is None
            live = await run_row(url, run_id)
            assert (status["hasActiveRun"], status["runId"]) == (True, run_id)
            assert (live.status, live.lease_epoch) == ("running", 1)
            cancelled = await client_a.post(f"/v1/chat/{thread}/cancel")
            frames = await finish

    assert still_up
    assert cancelled.status_code == 200
    assert finishes(frames) == [CANCELLED]
    assert [f.id for f in frames] == list(range(1, len(frames) + 1))


@pytest.mark.parametrize(
    "takeover",
    [
        # The backstop: the survivor's sweep waits for the dead server's lease to lapse.
        {"RUNYARD_LEASE_SECONDS": "2", "RUNYARD_LIVENESS_SECONDS": "0"},
        # Leases of ten minutes: only the survivor seeing the dead server's lock go (the death
        # watch, service.md "Liveness") can explain a takeover within the test's bounds.
        {"RUNYARD_LEASE_SECONDS": "600"},
    ],
    ids=["lease-lapsed", "lock-gone"],
)
async def test_a_killed_servers_run_is_carried_on_by_a_survivor(
    shared: Shared, thread: str, takeover: dict[str, str]
) -> None:
    env = {**shared.env, **takeover}
    port_a, port_b = free_port(), free_port()
    with server(shared.url, port_a, **env) as killed, server(shared.url, port_b, **env):
        async with client_for(port_a) as client_a, client_for(port_b) as client_b:
            run_id = await start_slow_run(client_a, thread)
            killed.send_signal(signal.SIGKILL)
            await asyncio.to_thread(killed.wait, 20)
            await frames_until(client_b, thread, "run-resumed", within=60)
            # The survivor drives it now: a cancel there ends it (it would stream for minutes).
            cancelled = await client_b.post(f"/v1/chat/{thread}/cancel")
            frames = await frames_until(client_b, thread, "run-finish", within=60)
            closed = await run_row(shared.url, run_id, closed=True)
            again = await client_b.post(f"/v1/chat/{thread}", json={"message": "hello again"})

    assert cancelled.status_code == 200
    assert finishes(frames) == [CANCELLED]
    assert [f.id for f in frames] == list(range(1, len(frames) + 1))
    # Taken by the survivor's sweep (epoch 2), then by the survivor itself to drive it (3).
    assert (closed.status, closed.lease_epoch) == ("cancelled", 3)
    assert again.status_code == 200


async def test_an_embedded_server_killed_and_started_again_carries_its_run_on_at_once(
    tmp_path: Path, thread: str
) -> None:
    url, env = f"sqlite:///{tmp_path / 'runyard.db'}", {"RUNYARD_LEASE_SECONDS": "600"}
    first, second = free_port(), free_port()
    with server(url, first, **env) as killed:
        async with client_for(first) as client:
            run_id = await start_slow_run(client, thread)
        killed.send_signal(signal.SIGKILL)
        await asyncio.to_thread(killed.wait, 20)
    with server(url, second, **env):
        async with client_for(second) as client:
            await frames_until(client, thread, "run-resumed", within=60)
            await client.post(f"/v1/chat/{thread}/cancel")
            frames = await frames_until(client, thread, "run-finish", within=60)
            closed = await run_row(url, run_id, closed=True)

    assert finishes(frames) == [CANCELLED]
    assert closed.status == "cancelled"


async def test_a_sub_agents_question_asked_on_one_server_is_answered_on_another(
    shared: Shared, thread: str
) -> None:
    delegation = {
        "role": "keeper",
        "instructions": "You keep notes.",
        "briefing": '/tool save_note {"text": "keep"}',  # the demo sub-agent calls save_note
        "tools": ["save_note"],
    }
    message = f"/tool delegate {json.dumps(delegation)}"
    port_a, port_b = free_port(), free_port()
    with server(shared.url, port_a, **shared.env), server(shared.url, port_b, **shared.env):
        async with client_for(port_a) as client_a, client_for(port_b) as client_b:
            await client_a.post(f"/v1/chat/{thread}", json={"message": message})
            asked = await frames_until(client_a, thread, "confirmation-request")
            question = asked[-1].data or {}
            answered = await client_b.post(
                f"/v1/confirm/{question['payload']['requestId']}", json={"approved": True}
            )
            # B drives the resumed run (A's stream sees it live only with a shared bus).
            frames = await frames_until(client_b, thread, "run-finish")

    data = [f.data for f in frames if f.data is not None]
    (spawned,) = [e for e in data if e["type"] == "agent-spawned"]
    assert question["agentId"] == spawned["agentId"]
    assert answered.status_code == 200
    completed = [e["agentId"] for e in data if e["type"] == "agent-completed"]
    assert completed == [spawned["agentId"]]
    assert finishes(frames) == [{"status": "completed", "usage": ANY}]


async def test_a_cancel_sent_to_the_server_that_does_not_run_the_thread_ends_the_run(
    shared: Shared, thread: str
) -> None:
    # The in-process bus does not cross processes: there the owner's heartbeat finds the cancel
    # in the database (every second with 3 s leases); Redis carries it at once.
    env = shared.env or {"RUNYARD_LEASE_SECONDS": "3"}
    port_a, port_b = free_port(), free_port()
    with server(shared.url, port_a, **env), server(shared.url, port_b, **env):
        async with client_for(port_a) as client_a, client_for(port_b) as client_b:
            run_id = await start_slow_run(client_a, thread)
            finish = asyncio.create_task(frames_until(client_a, thread, "run-finish", within=60))
            cancelled = await client_b.post(f"/v1/chat/{thread}/cancel")
            frames = await finish
            closed = await run_row(shared.url, run_id, closed=True)
            again = await client_b.post(f"/v1/chat/{thread}", json={"message": "hello again"})

    assert (cancelled.status_code, cancelled.json()) == (200, {"ok": True})
    assert finishes(frames) == [CANCELLED]
    assert (closed.status, closed.lease_epoch) == ("cancelled", 1)  # ended by its own server
    assert again.status_code == 200


async def test_sigterm_hands_a_run_over_unfinished_to_a_live_neighbour(
    shared: Shared, thread: str
) -> None:
    stopping = {**shared.env, "RUNYARD_SHUTDOWN_GRACE_SECONDS": "1"}
    neighbour = {**shared.env, "RUNYARD_LEASE_SECONDS": "2", "RUNYARD_INSTANCE_ID": "neighbour"}
    port_a, port_b = free_port(), free_port()
    with server(shared.url, port_a, **stopping) as a, server(shared.url, port_b, **neighbour):
        async with client_for(port_a) as client_a, client_for(port_b) as client_b:
            run_id = await start_slow_run(client_a, thread)
            code = await stop(a)
            # Released, not left to expire: the neighbour's next sweep (every 2/3 s) takes it.
            taken, ended_as = await taken_over(shared.url, run_id)
            await client_b.post(f"/v1/chat/{thread}/cancel")

    assert code == 0
    assert taken.lease_owner.startswith("neighbour")
    assert "server_shutdown" not in ended_as  # the stopping server ended nothing


async def test_sigterm_hands_a_run_over_to_the_same_servers_next_start(
    shared: Shared, thread: str
) -> None:
    env = {**shared.env, "RUNYARD_SHUTDOWN_GRACE_SECONDS": "1"}
    port = free_port()
    with server(shared.url, port, **env, RUNYARD_INSTANCE_ID="first-life") as first:
        async with client_for(port) as client:
            run_id = await start_slow_run(client, thread)
        code = await stop(first)
    # Nothing runs now: the row is as the stopped server left it.
    released = await run_row(shared.url, run_id)
    stopped_at = now_ms()
    finished_before = await logged_finishes(shared.url, run_id)
    with server(shared.url, port, **env, RUNYARD_INSTANCE_ID="second-life"):
        async with client_for(port) as client:  # ready: its start-up sweep has run
            taken, _ = await taken_over(shared.url, run_id)
            await client.post(f"/v1/chat/{thread}/cancel")

    assert code == 0
    assert (released.status, released.lease_owner, released.lease_epoch) == (
        "running",
        "first-life",
        1,
    )
    assert released.lease_expires_at <= stopped_at
    assert finished_before == []
    assert taken.lease_owner.startswith("second-life")
