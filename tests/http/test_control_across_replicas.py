"""Control from any replica over HTTP (issue 11 item 3): two app instances on one database — a
SQLite file with one in-process bus, or PostgreSQL with Redis. A cancel sent to the app that does
not drive the run answers 200 once the run has ended (no 409 ``run_busy``), and the thread takes
the next message at once; racing confirms sent to both apps let exactly one through and the tool
runs once."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from http_harness import ALICE_OWNER, asgi_client, running_app, settled

from blocking_agents import blocking_agents
from postgres_databases import truncate_all, unavailable
from runyard.agent import Agent
from runyard.memory import Memory
from runyard.service.bus import InProcessEventBus
from runyard.storage import Store, open_store
from runyard.testing import call, scripted_model, text
from runyard.tools import tool

Agents = Callable[[Store], list[Agent]]


@dataclass
class Pair:
    """Two apps on one database: ``a`` and ``b``, with a client each."""

    url: str
    apps: list[FastAPI] = field(default_factory=list)
    clients: list[httpx.AsyncClient] = field(default_factory=list)


@pytest.fixture(params=["sqlite+in-process", "postgresql+redis"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Which bus, and the database (PostgreSQL emptied after the test)."""
    if request.param == "sqlite+in-process":
        yield "in-process", f"sqlite:///{tmp_path / 'runyard.db'}"
        return
    redis_url = os.environ.get("RUNYARD_TEST_REDIS_URL", "")
    if not redis_url:
        unavailable("RUNYARD_TEST_REDIS_URL is not set")
    database: str = request.getfixturevalue("postgresql_db")
    yield redis_url, database
    asyncio.run(truncate_all(database))


@pytest.fixture
def two_apps(backend: tuple[str, str]) -> Callable[[Agents], Any]:
    """Start two apps serving ``agents`` on the backend's database."""
    bus_kind, url = backend

    async def start(agents: Agents) -> AsyncIterator[Pair]:
        pair = Pair(url)
        async with AsyncExitStack() as stack:
            shared = InProcessEventBus() if bus_kind == "in-process" else None
            options: dict[str, Any] = {"bus": shared} if shared is not None else {}
            settings = {"redis_url": bus_kind} if shared is None else {}
            for instance in ("replica-a", "replica-b"):
                app = await stack.enter_async_context(
                    running_app(url, agents, settings=settings, instance=instance, **options)
                )
                pair.apps.append(app)
                pair.clients.append(await stack.enter_async_context(asgi_client(app)))
            try:
                yield pair
            finally:
                if shared is not None:
                    stack.push_async_callback(shared.close)

    return start


def counting(calls: list[str]) -> Agents:
    # One model for both apps: whichever resumes the run gets the model's next turn.
    model = scripted_model([call("launch", {"target": "moon"}), text("launched")])

    @tool(requires_approval=True)
    async def launch(target: str) -> dict[str, str]:
        """Launch something irreversible."""
        calls.append(target)
        return {"launched": target}

    def build(store: Store) -> list[Agent]:
        return [Agent("assistant", model, tools=[launch], memory=Memory(store))]

    return build


async def stored_finishes(url: str, thread: str) -> list[dict[str, Any]]:
    store = await open_store(url)
    try:
        events = await store.read_events(ALICE_OWNER.thread_key(thread), after_id=0)
    finally:
        await store.close()
    return [e.data["payload"] for e in events if e.type == "run-finish"]


async def pending_request(url: str, thread: str) -> str:
    store = await open_store(url)
    try:
        (pending,) = await store.list_pending_confirmations(ALICE_OWNER.thread_key(thread))
    finally:
        await store.close()
    return pending.request_id


async def test_a_cancel_sent_to_the_other_app_ends_the_run_and_frees_the_thread(
    two_apps: Callable[[Agents], Any],
) -> None:
    started = asyncio.Event()
    async for pair in two_apps(blocking_agents(started)):
        a, b = pair.clients
        posted = await a.post("/v1/chat/t1", json={"message": "go"})
        async with asyncio.timeout(20):
            await started.wait()
        cancelled = await b.post("/v1/chat/t1/cancel")
        finishes = await stored_finishes(pair.url, "t1")
        status = (await b.get("/v1/threads/t1/status")).json()
        again = await b.post("/v1/chat/t1", json={"message": "/nothing"})

    assert posted.status_code == 200
    assert (cancelled.status_code, cancelled.json()) == (200, {"ok": True})
    assert [(f["status"], f["reason"]) for f in finishes] == [("cancelled", "user_cancelled")]
    assert status["hasActiveRun"] is False
    assert again.status_code == 200, again.text


async def test_racing_confirms_sent_to_both_apps_let_one_through_and_run_the_tool_once(
    two_apps: Callable[[Agents], Any],
) -> None:
    calls: list[str] = []
    async for pair in two_apps(counting(calls)):
        a, b = pair.clients
        await a.post("/v1/chat/t1", json={"message": "go"})
        await settled(pair.apps[0], "t1")
        request_id = await pending_request(pair.url, "t1")
        answers = await asyncio.gather(
            *(
                (a, b)[i % 2].post(f"/v1/confirm/{request_id}", json={"approved": True})
                for i in range(10)
            )
        )
        for app in pair.apps:
            await settled(app, "t1")
        finishes = await stored_finishes(pair.url, "t1")

    codes = sorted(r.status_code for r in answers)
    assert codes == [200] + [409] * 9
    assert calls == ["moon"]
    assert [f["status"] for f in finishes] == ["completed"]
