"""Cancel reaches sub-agents: cancelling a run stops the sub-agent ``delegate`` started, and the
run ends ``cancelled``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from http_harness import asgi_client, asgi_sse, running_app

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.service.tools import delegate, plan
from runyard.storage import Store
from runyard.testing import call, scripted_model
from runyard.tools import Tool, tool
from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


class Gate:
    """A tool that waits until it is cancelled, and says when it started and when it stopped."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.stopped = asyncio.Event()

    def tool(self) -> Tool:
        @tool
        async def wait_for_go() -> str:
            """Wait until someone says go."""
            self.entered.set()
            try:
                await asyncio.Event().wait()
            finally:
                self.stopped.set()
            return "go"

        return wait_for_go


async def test_cancelling_a_run_stops_its_delegated_sub_agent(url: str) -> None:
    gate = Gate()
    delegation = {
        "role": "waiter",
        "instructions": "You wait.",
        "briefing": "Wait for the go.",
        "tools": ["wait_for_go"],
    }
    model = scripted_model(
        [
            call("delegate", delegation, id="call_d"),  # orchestrator
            call("wait_for_go", id="call_w"),  # sub-agent, which then waits
        ]
    )

    def build(store: Store) -> list[Agent]:
        tools = [gate.tool(), plan, delegate]
        return [Agent("assistant", model, tools=tools, memory=Memory(store))]

    async with running_app(url, build) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "delegate the waiting"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            await asyncio.wait_for(gate.entered.wait(), 20)
            assert (await client.post("/v1/chat/t1/cancel")).status_code == 200
            frames = [f.data for f in await stream.until("run-finish") if f.data is not None]
        await asyncio.wait_for(gate.stopped.wait(), 20)

    (spawned,) = [e for e in frames if e["type"] == "agent-spawned"]
    waited = [e for e in frames if e["type"] == "tool-call" and e["agentId"] == spawned["agentId"]]
    assert [e["payload"]["toolName"] for e in waited] == ["wait_for_go"]
    finish = frames[-1]
    assert (finish["payload"]["status"], finish["payload"]["reason"]) == (
        "cancelled",
        "user_cancelled",
    )
    assert len(model.requests) == 2  # the sub-agent never went on to another model call
