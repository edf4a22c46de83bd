"""What clients learn about a run over HTTP: a provider failure's status code and provider on
the SSE ``error`` event, and the run's usage on ``run-finish`` and on its row of ``/messages``;
a tool's progress as a ``status`` event; any run failure as an ``error`` event.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from http_harness import asgi_client, asgi_sse, running_app, settled

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.storage import Store
from runyard.testing import call, scripted_model, text
from runyard.tools import ToolContext, tool
from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def test_a_provider_failure_streams_its_status_code_and_provider(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "hello\n/fail 429"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    events = [f.data for f in frames if f.data is not None]
    assert [e["type"] for e in events] == ["run-start", "error", "run-finish"]
    content = (
        "runyard:demo answered HTTP 429 Too Many Requests: "
        "the demo model was asked to fail with HTTP 429"
    )
    assert events[1]["payload"] == {"content": content, "statusCode": 429, "provider": "runyard"}
    assert events[2]["payload"]["status"] == "error"
    assert events[2]["payload"]["reason"] == content


async def test_run_finish_and_the_messages_carry_the_runs_usage(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "hello there"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        await settled(app, "t1")  # the run-finish a client saw is in the stored history
        messages = (await client.get("/v1/threads/t1/messages")).json()

    finish = frames[-1].data
    assert finish is not None
    usage = finish["payload"]["usage"]
    assert set(usage) == {"inputTokens", "outputTokens", "totalTokens", "cost", "models"}
    assert usage["models"] == ["runyard:demo"]
    assert usage["totalTokens"] == usage["inputTokens"] + usage["outputTokens"] > 0
    assert [m.get("usage") for m in messages["messages"]] == [None, usage]


@tool
async def survey(ctx: ToolContext) -> str:
    """Survey the field, reporting progress."""
    ctx.progress("halfway there")
    return "surveyed"


async def test_a_tools_progress_streams_as_a_status_event(url: str) -> None:
    def build(store: Store) -> list[Agent]:
        model = scripted_model([call("survey", id="call_s"), text("Done")])
        return [Agent("assistant", model, tools=[survey], memory=Memory(store))]

    async with running_app(url, build) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "survey"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    events = [f.data for f in frames if f.data is not None]
    assert [e["type"] for e in events] == [
        "run-start",
        "tool-call",
        "status",
        "tool-result",
        "text-delta",
        "run-finish",
    ]
    status = events[2]
    assert (status["agentId"], status["payload"]) == ("agent-001", {"message": "halfway there"})
    assert events[-1]["payload"]["status"] == "completed"


async def test_a_runaway_tool_loop_streams_an_error_after_the_default_20_iterations(
    url: str,
) -> None:
    def build(store: Store) -> list[Agent]:
        model = scripted_model([call("survey") for _ in range(20)])
        return [Agent("assistant", model, tools=[survey], memory=Memory(store))]

    async with running_app(url, build) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "survey forever"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    events = [f.data for f in frames if f.data is not None]
    assert [e["type"] for e in events].count("tool-call") == 20
    error, finish = events[-2:]
    content = "Agent loop exceeded 20 iterations without reaching a stop condition"
    assert (error["type"], error["agentId"], error["payload"]) == (
        "error",
        "agent-001",
        {"content": content},
    )
    assert (finish["type"], finish["payload"]["status"]) == ("run-finish", "error")
    assert finish["payload"]["reason"] == "max_iterations"
