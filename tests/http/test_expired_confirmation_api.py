"""An approval nobody gave within ``RUNYARD_CHECKPOINT_TTL_SECONDS``, over HTTP: its run ends with
``run-finish {"status": "error", "reason": "approval_expired"}`` on the event stream, a late
confirm is ``410 confirmation_expired``, and the thread takes new messages again. The TTL runs on
a clock the test moves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from http_harness import asgi_client, asgi_sse, running_app, settled

from expiring_agents import NOTE, TTL, Clock, agents_on
from sqlite_databases import MigratedSqlite

EXPIRED = {"status": "error", "reason": "approval_expired"}


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def test_a_late_confirm_is_410_and_the_stream_gets_the_run_finish(url: str) -> None:
    clock = Clock()
    async with running_app(url, agents_on(clock)) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": NOTE})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            asked: dict[str, Any] = (await stream.until("confirmation-request"))[-1].data
            clock.ms += TTL * 1000
            late = await client.post(
                f"/v1/confirm/{asked['payload']['requestId']}", json={"approved": True}
            )
            finish = (await stream.until("run-finish"))[-1].data
        again = await client.post(
            f"/v1/confirm/{asked['payload']['requestId']}", json={"approved": True}
        )
        status = (await client.get("/v1/threads/t1/status")).json()
        after = await client.post("/v1/chat/t1", json={"message": "hello again"})
        await settled(app, "t1")

    assert late.status_code == 410
    assert late.json()["error"]["code"] == "confirmation_expired"
    assert again.status_code == 410
    assert finish == {
        "type": "run-finish",
        "runId": asked["runId"],
        "agentId": "agent-001",
        "payload": EXPIRED,
    }
    assert (status["hasActiveRun"], status["isSuspended"]) == (False, False)
    assert after.status_code == 200


async def test_a_restarted_server_ends_what_expired_while_it_was_down(url: str) -> None:
    clock = Clock()
    async with running_app(url, agents_on(clock)) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": NOTE})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            asked = (await stream.until("confirmation-request"))[-1].data
    clock.ms += TTL * 1000
    async with running_app(url, agents_on(clock)) as app, asgi_client(app) as client:
        status = (await client.get("/v1/threads/t1/status")).json()
        async with asgi_sse(app, "/v1/events/t1") as stream:
            finish = (await stream.until("run-finish"))[-1].data

    assert (status["hasActiveRun"], status["isSuspended"]) == (False, False)
    assert (finish["runId"], finish["payload"]) == (asked["runId"], EXPIRED)
