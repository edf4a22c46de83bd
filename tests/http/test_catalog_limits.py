"""A catalog agent's limits and structured output, over HTTP: ``timeout_s`` ends the run with
``run-finish`` ``{"status": "error", "reason": "timeout"}``, ``requests_per_minute`` answers
``429`` with ``Retry-After`` (a confirm is not a new request), and ``output_schema`` puts the
object on ``run-finish``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from catalog_harness import serving
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.testing import Turn, call, scripted_model, text
from sqlite_databases import MigratedSqlite

MODEL = "openai:gpt-4o-mini"

CATALOG = f"""\
kind: agent
id: slow
model: {MODEL}
limits: {{timeout_s: 0.2}}
---
kind: agent
id: scarce
model: {MODEL}
tools: [save_note]
limits: {{requests_per_minute: 2}}
---
kind: agent
id: books
model: {MODEL}
output_schema:
  type: object
  properties: {{total: {{type: number}}}}
  required: [total]
---
kind: routing
default_agent: scarce
"""


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "agents.yaml").write_text(CATALOG)
    return directory


async def finished(app: FastAPI, thread: str) -> list[dict[str, Any]]:
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        frames = await stream.until("run-finish")
    return [f.data for f in frames if f.data is not None]


async def test_a_run_past_timeout_s_ends_with_reason_timeout(url: str, catalog: Path) -> None:
    async def hang(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "Thinking"
        await asyncio.Event().wait()  # nobody sets it: only the run's timeout ends this

    async with serving(url, catalog, FunctionModel(stream_function=hang)) as app:
        async with asgi_client(app) as client:
            started = await client.post("/v1/chat/t1", json={"message": "hi", "agentId": "slow"})
        events = await finished(app, "t1")

    assert started.status_code == 200
    error, finish = events[-2:]
    assert (error["type"], error["payload"]) == (
        "error",
        {"content": "Agent run timed out after 0.2s"},
    )
    assert finish["type"] == "run-finish"
    assert (finish["payload"]["status"], finish["payload"]["reason"]) == ("error", "timeout")


async def test_requests_past_requests_per_minute_are_429_with_retry_after(
    url: str, catalog: Path
) -> None:
    model = scripted_model([text("one"), text("two"), text("other tenant")])
    async with serving(url, catalog, model) as app, asgi_client(app) as client:
        first = await client.post("/v1/chat/t1", json={"message": "1"})
        await finished(app, "t1")
        second = await client.post("/v1/chat/t2", json={"message": "2"})
        await finished(app, "t2")
        refused = await client.post("/v1/chat/t3", json={"message": "3"})
        elsewhere = await client.post(
            "/v1/chat/t3", json={"message": "3"}, headers={"X-Runyard-Tenant": "globex"}
        )
        listed = (await client.get("/v1/threads")).json()["threads"]
        document = schemathesis.openapi.from_dict(app.openapi())

    document["/v1/chat/{thread_id}"]["POST"].validate_response(refused)
    assert (first.status_code, second.status_code, elsewhere.status_code) == (200, 200, 200)
    assert refused.status_code == 429
    retry_after = int(refused.headers["Retry-After"])
    assert 1 <= retry_after <= 60
    assert refused.json() == {
        "error": {
            "code": "rate_limited",
            "message": (
                "agent 'scarce' takes 2 requests per minute for this tenant "
                f"(requests_per_minute); retry in {retry_after}s"
            ),
            "limit": "requests_per_minute",
            "agentId": "scarce",
            "requestsPerMinute": 2,
            "retryAfter": retry_after,
        }
    }
    assert sorted(t["id"] for t in listed) == ["t1", "t2"]  # the refused request stored nothing


async def test_a_confirm_is_not_a_new_request(url: str, catalog: Path) -> None:
    model = scripted_model([call("save_note", {"text": "rent"}), text("noted"), text("again")])
    async with serving(url, catalog, model) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "note rent"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("confirmation-request")
        assert frames[-1].data is not None
        request_id = frames[-1].data["payload"]["requestId"]
        confirmed = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        await finished(app, "t1")
        second = await client.post("/v1/chat/t2", json={"message": "2"})

    assert (confirmed.status_code, second.status_code) == (200, 200)


async def test_an_output_schema_puts_the_object_on_run_finish(url: str, catalog: Path) -> None:
    model = scripted_model([Turn(output={"total": "?"}), Turn(output={"total": 42})])
    async with serving(url, catalog, model) as app:
        async with asgi_client(app) as client:
            await client.post("/v1/chat/t1", json={"message": "sum", "agentId": "books"})
        events = await finished(app, "t1")

    finish = events[-1]["payload"]
    assert (finish["status"], finish["output"]) == ("completed", {"total": 42})
    retried = [e for e in events if e["type"] == "tool-error"]
    assert len(retried) == 1
    assert retried[0]["payload"]["error"].startswith("Invalid final_result arguments: total:")
