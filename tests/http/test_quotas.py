"""Rate limits and quotas across two app instances on one database (a SQLite file, PostgreSQL):
what one instance admitted counts on the other. ``requests_per_minute`` (the agent's, per tenant)
and ``RUNYARD_TENANT_REQUESTS_PER_MINUTE`` count new runs in a sliding minute; ``concurrent_runs``
and ``RUNYARD_TENANT_CONCURRENT_RUNS`` count running runs. Every refusal is a documented 429
with ``Retry-After`` that leaves nothing stored or counted; a confirmation is never limited."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from catalog_harness import serving
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

from postgres_databases import private_database

MODEL = "openai:gpt-4o-mini"

CATALOG = f"""\
kind: agent
id: scarce
model: {MODEL}
limits: {{requests_per_minute: 2}}
---
kind: agent
id: busy
model: {MODEL}
tools: [save_note]
limits: {{concurrent_runs: 1}}
---
kind: agent
id: other
model: {MODEL}
---
kind: routing
default_agent: other
"""

GLOBEX = {"X-Runyard-Tenant": "globex"}


@pytest.fixture
def postgresql_url() -> Iterator[str]:
    """A fresh database per test: the counts of one test's minute must not reach the next."""
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_quotas")


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The one database both instances use."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'runyard.db'}"
    shared: str = request.getfixturevalue("postgresql_url")
    return shared


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "agents.yaml").write_text(CATALOG)
    return directory


class Gate:
    """A model whose every answer waits until the test opens the gate: a run stays running for
    exactly as long as the test needs. A message starting with ``note`` asks to save a note
    first (``save_note`` needs approval, so that run waits for a person)."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.model = FunctionModel(stream_function=self._answer)

    async def _answer(
        self, messages: list[pai.ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | dict[int, DeltaToolCall]]:
        last = messages[-1].parts[-1]
        if isinstance(last, pai.UserPromptPart) and str(last.content).startswith("note"):
            yield {
                0: DeltaToolCall(name="save_note", json_args='{"text": "rent"}', tool_call_id="c1")
            }
            return
        await self.open.wait()
        yield "done"


@asynccontextmanager
async def two_instances(
    url: str, catalog: Path, gate: Gate, **settings: Any
) -> AsyncIterator[tuple[FastAPI, FastAPI]]:
    async with AsyncExitStack() as stack:
        apps = [
            await stack.enter_async_context(
                serving(url, catalog, gate.model, instance_id=name, **settings)
            )
            for name in ("replica-a", "replica-b")
        ]
        try:
            yield apps[0], apps[1]
        finally:
            gate.open.set()  # whatever still runs can end before the instances stop


async def chat(
    app: FastAPI, thread: str, agent: str, headers: dict[str, str] | None = None
) -> httpx.Response:
    async with asgi_client(app) as client:
        return await client.post(
            f"/v1/chat/{thread}", json={"message": "hi", "agentId": agent}, headers=headers
        )


async def until(app: FastAPI, thread: str, kind: str, headers: dict[str, str] | None = None) -> Any:
    """The payload of the thread's first event of ``kind`` (a test that never sees it fails)."""
    async with asgi_sse(app, f"/v1/events/{thread}", headers) as stream, asyncio.timeout(30):
        frames = await stream.until(kind)
    assert frames[-1].data is not None
    return frames[-1].data["payload"]


def documented(app: FastAPI, refused: httpx.Response) -> None:
    """The refusal is a 429 the OpenAPI document describes, ``Retry-After`` included."""
    document = schemathesis.openapi.from_dict(app.openapi())
    document["/v1/chat/{thread_id}"]["POST"].validate_response(refused)
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) == refused.json()["error"]["retryAfter"]
    assert (
        "Retry-After"
        in app.openapi()["paths"]["/v1/chat/{thread_id}"]["post"]["responses"]["429"]["headers"]
    )


async def test_an_agents_requests_per_minute_counts_what_the_other_instance_admitted(
    url: str, catalog: Path
) -> None:
    gate = Gate()
    gate.open.set()
    async with two_instances(url, catalog, gate) as (a, b):
        first, second = await chat(a, "t1", "scarce"), await chat(a, "t2", "scarce")
        refused = await chat(b, "t3", "scarce")
        elsewhere = await chat(b, "t3", "scarce", GLOBEX)
        for app, thread, headers in ((a, "t1", None), (a, "t2", None), (b, "t3", GLOBEX)):
            await until(app, thread, "run-finish", headers)
        async with asgi_client(b) as client:
            listed = (await client.get("/v1/threads")).json()["threads"]

    assert (first.status_code, second.status_code, elsewhere.status_code) == (200, 200, 200)
    documented(b, refused)
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


async def test_the_tenants_requests_per_minute_spans_its_agents_and_both_instances(
    url: str, catalog: Path
) -> None:
    gate = Gate()
    gate.open.set()
    async with two_instances(url, catalog, gate, tenant_requests_per_minute=2) as (a, b):
        admitted = [await chat(a, "t1", "other"), await chat(b, "t2", "scarce")]
        refused = await chat(a, "t3", "other")
        elsewhere = await chat(a, "t3", "other", GLOBEX)
        for app, thread, headers in ((a, "t1", None), (b, "t2", None), (a, "t3", GLOBEX)):
            await until(app, thread, "run-finish", headers)

    assert [r.status_code for r in (*admitted, elsewhere)] == [200, 200, 200]
    documented(a, refused)
    retry_after = refused.json()["error"]["retryAfter"]
    assert refused.json() == {
        "error": {
            "code": "rate_limited",
            "message": (
                "this tenant may start 2 runs per minute (tenant_requests_per_minute); "
                f"retry in {retry_after}s"
            ),
            "limit": "tenant_requests_per_minute",
            "requestsPerMinute": 2,
            "retryAfter": retry_after,
        }
    }


async def test_concurrent_runs_count_the_runs_running_on_either_instance(
    url: str, catalog: Path
) -> None:
    gate = Gate()
    async with two_instances(url, catalog, gate, tenant_concurrent_runs=2) as (a, b):
        assert (await chat(a, "t1", "busy")).status_code == 200  # runs until the gate opens
        agent_full = await chat(b, "t2", "busy")
        assert (await chat(b, "t3", "other")).status_code == 200
        tenant_full = await chat(a, "t4", "other")
        elsewhere = await chat(b, "t5", "other", GLOBEX)

        gate.open.set()
        for app, thread, headers in ((a, "t1", None), (b, "t3", None), (b, "t5", GLOBEX)):
            await until(app, thread, "run-finish", headers)
        again = await chat(b, "t2", "busy")
        await until(b, "t2", "run-finish")

    assert (elsewhere.status_code, again.status_code) == (200, 200)
    documented(b, agent_full)
    assert agent_full.headers["Retry-After"] == "5"
    assert agent_full.json() == {
        "error": {
            "code": "concurrent_runs_limited",
            "message": (
                "agent 'busy' runs 1 runs at once for this tenant (concurrent_runs); retry in 5s"
            ),
            "limit": "concurrent_runs",
            "agentId": "busy",
            "concurrentRuns": 1,
            "retryAfter": 5,
        }
    }
    documented(a, tenant_full)
    assert tenant_full.json()["error"] == {
        "code": "concurrent_runs_limited",
        "message": (
            "this tenant may have 2 runs running at once (tenant_concurrent_runs); retry in 5s"
        ),
        "limit": "tenant_concurrent_runs",
        "concurrentRuns": 2,
        "retryAfter": 5,
    }


async def test_a_run_waiting_for_approval_holds_no_place_and_its_confirm_is_never_limited(
    url: str, catalog: Path
) -> None:
    gate = Gate()
    async with two_instances(url, catalog, gate) as (a, b):
        async with asgi_client(a) as client:
            asked = await client.post(
                "/v1/chat/t1", json={"message": "note rent", "agentId": "busy"}
            )
        request_id = (await until(a, "t1", "confirmation-request"))["requestId"]
        running = await chat(b, "t2", "busy")  # t1 waits for a person: the place is free
        refused = await chat(a, "t3", "busy")  # t2 runs: the place is taken
        async with asgi_client(b) as client:
            confirmed = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        gate.open.set()
        for thread in ("t1", "t2"):  # t1 resumed on b: b's own bus tells its stream
            await until(b, thread, "run-finish")

    assert (asked.status_code, running.status_code, confirmed.status_code) == (200, 200, 200)
    assert (refused.status_code, refused.json()["error"]["code"]) == (
        429,
        "concurrent_runs_limited",
    )
