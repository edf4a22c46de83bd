"""Going away cleanly: the app's lifespan (whoever runs it) refuses new requests (503 with
``Retry-After``), lets this process's runs end within the grace and hands the rest over
unfinished (lease released, no ``run-finish``), then ends every event stream after a
``server-shutdown`` frame — instead of waiting forever for streams that never end by themselves."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from http_harness import ALICE_OWNER, Frame, asgi_client, asgi_sse, built_app, running_app

from runyard.ids import now_ms
from runyard.storage import open_store
from sqlite_databases import MigratedSqlite

SLOW = "/delay 50\n" + "word " * 40
ENDLESS = "/delay 50\n" + "word " * 2000
"""Streams for minutes: still going when any grace is up."""
GOODBYE = Frame(event="server-shutdown", data={"reason": "server_shutdown"})


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def test_leaving_the_lifespan_lets_the_run_end_then_says_goodbye_on_open_streams(
    url: str,
) -> None:
    async with built_app(url) as app, AsyncExitStack() as lifespan:
        await lifespan.enter_async_context(app.router.lifespan_context(app))
        async with asgi_client(app) as client:
            await client.post("/v1/chat/t1", json={"message": SLOW})
        async with (
            asgi_sse(app, "/v1/events/t1") as watching,
            asgi_sse(app, "/v1/events/quiet") as idle,
        ):
            seen = await watching.until("text-delta")
            await lifespan.aclose()
            seen += await watching.rest()
            idle_rest = await idle.rest()
    store = await open_store(url)
    try:
        stored = await store.read_events(ALICE_OWNER.thread_key("t1"), after_id=0)
    finally:
        await store.close()

    events = [f for f in seen if f.id is not None]
    assert seen[-1] == GOODBYE
    assert events[-1].data is not None
    assert events[-1].data["type"] == "run-finish"
    assert events[-1].data["payload"]["status"] == "completed"
    assert [f.id for f in events] == list(range(1, len(events) + 1))
    assert [(e.id, e.type) for e in stored] == [(f.id, f.data["type"]) for f in events if f.data]
    assert idle_rest[-1] == GOODBYE


async def test_a_run_still_going_when_the_grace_is_up_is_handed_over_unfinished(
    url: str,
) -> None:
    settings = {"shutdown_grace_seconds": 1}
    async with built_app(url, settings=settings) as app, AsyncExitStack() as lifespan:
        await lifespan.enter_async_context(app.router.lifespan_context(app))
        instance = app.state.runyard.parts.runs.instance_id
        async with asgi_client(app) as client:
            run_id = (await client.post("/v1/chat/t1", json={"message": ENDLESS})).json()["runId"]
        async with asgi_sse(app, "/v1/events/t1") as watching:
            seen = await watching.until("reasoning-delta")
            await lifespan.aclose()
            handed_over_at = now_ms()
            seen += await watching.rest()
    store = await open_store(url)
    try:
        row = await store.get_run(run_id)
        stored = await store.read_events(ALICE_OWNER.thread_key("t1"), after_id=0)
    finally:
        await store.close()

    assert seen[-1] == GOODBYE
    assert "run-finish" not in [e.type for e in stored]
    assert row is not None
    # Still running, still this process's lease at its epoch, but ended: any sweep takes it.
    assert (row.status, row.lease_owner, row.lease_epoch) == ("running", instance, 1)
    assert row.lease_expires_at <= handed_over_at


async def test_a_draining_app_refuses_new_requests_with_503(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await app.state.runyard.drain()
        listed = await client.get("/v1/threads")
        ready = await client.get("/readyz")
        events = await client.get("/v1/events/t1")
        posted = await client.post("/v1/chat/t1", json={"message": "hello"})

    assert (ready.status_code, ready.json()) == (503, {"status": "stopping", "role": "all"})
    for response in (listed, events, posted):
        assert response.status_code == 503
        assert response.headers["Retry-After"] == "5"
        assert response.json()["error"] == {
            "code": "not_ready",
            "message": "the service is stopping",
        }
