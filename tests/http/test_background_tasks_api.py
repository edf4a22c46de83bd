"""Background sub-agents over HTTP: the SSE client sees the task's events under its own agentId,
``/status`` lists the task while it runs — also for a client that reloads the page — and a cancel
ends every sub-agent with ``agent-completed`` cancelled before the ``run-finish``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from http_harness import asgi_client, asgi_sse, running_app, settled

from concurrent_agents import Gate, per_agent_model
from runyard.agent import Agent
from runyard.memory import Memory
from runyard.service.tools import await_task, delegate, task_status
from runyard.storage import Store
from runyard.testing import call, text
from sqlite_databases import MigratedSqlite

RESEARCH = "You research."
WRITING = "You write."


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


def delegation(instructions: str, tool_name: str, *, background: bool) -> dict[str, Any]:
    return {
        "role": "researcher" if instructions == RESEARCH else "writer",
        "instructions": instructions,
        "briefing": "Find it.",
        "tools": [tool_name],
        "background": background,
    }


def background_research(gate: Gate) -> Any:
    def build(store: Store) -> list[Agent]:
        model = per_agent_model(
            [call("delegate", delegation(RESEARCH, "fetch", background=True)), text("On it")],
            {RESEARCH: [call("fetch", id="call_f"), text("Found 3 sources")]},
        )
        tools = [delegate, task_status, await_task, gate.tool]
        return [Agent("assistant", model, tools=tools, memory=Memory(store))]

    return build


async def test_a_background_task_streams_shows_in_status_and_survives_a_reload(url: str) -> None:
    gate = Gate("fetch")
    async with running_app(url, background_research(gate)) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "research this"})
        await gate.reached()
        async with asgi_sse(app, "/v1/events/t1") as stream:
            seen = [f.data for f in await stream.until("tool-call")]  # the orchestrator's
            seen += [f.data for f in await stream.until("tool-call")]  # the sub-agent's
            running = (await client.get("/v1/threads/t1/status")).json()
        # A page reload: history first, then status, then the stream from the hand-off cursor.
        async with asgi_client(app) as reloaded:
            history = (await reloaded.get("/v1/threads/t1/messages")).json()
            again = (await reloaded.get("/v1/threads/t1/status")).json()
            gate.open()
            cursor = {"Last-Event-ID": str(history["nextEventId"] - 1)}
            async with asgi_sse(app, "/v1/events/t1", cursor) as stream:
                rest = [f.data for f in await stream.until("run-finish")]
            await settled(app, "t1")
            after = (await reloaded.get("/v1/threads/t1/status")).json()

    (spawned,) = [e for e in seen if e["type"] == "agent-spawned"]
    child, task_id = spawned["agentId"], spawned["payload"]["taskId"]
    assert spawned["payload"]["parentId"] == "agent-001"
    assert seen[-1]["agentId"] == child
    (task,) = running["backgroundTasks"]
    assert task == {
        "taskId": task_id,
        "role": "researcher",
        "agentId": child,
        "status": "running",
        "startedAt": task["startedAt"],
    }
    assert running["hasActiveRun"] is True
    assert again == running
    (sub,) = history["messages"][-1]["agentTree"]["children"]
    assert (sub["agentId"], sub["status"]) == (child, "active")
    child_rest = [(e["type"], e["agentId"]) for e in rest if e["type"] != "text-delta"]
    assert child_rest[-3:] == [
        ("tool-result", child),
        ("agent-completed", child),
        ("run-finish", "agent-001"),
    ]
    assert rest[-1]["payload"]["status"] == "completed"
    assert after == {"hasActiveRun": False, "isSuspended": False, "backgroundTasks": []}


async def test_cancel_ends_every_sub_agent_with_agent_completed_before_run_finish(
    url: str,
) -> None:
    fetch, draft = Gate("fetch"), Gate("draft")

    def build(store: Store) -> list[Agent]:
        model = per_agent_model(
            [
                call("delegate", delegation(RESEARCH, "fetch", background=True)),
                call("delegate", delegation(WRITING, "draft", background=False)),
                text("unreachable"),
            ],
            {RESEARCH: [call("fetch")], WRITING: [call("draft")]},
        )
        tools = [delegate, task_status, await_task, fetch.tool, draft.tool]
        return [Agent("assistant", model, tools=tools, memory=Memory(store))]

    async with running_app(url, build) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "research and write"})
        await fetch.reached()
        await draft.reached()
        async with asgi_sse(app, "/v1/events/t1") as stream:
            cancelled = await client.post("/v1/chat/t1/cancel")
            frames = [f.data for f in await stream.until("run-finish")]
        status = (await client.get("/v1/threads/t1/status")).json()

    assert cancelled.status_code == 200
    spawned = {e["agentId"]: e["payload"]["role"] for e in frames if e["type"] == "agent-spawned"}
    completed = [e for e in frames if e["type"] == "agent-completed"]
    assert {e["agentId"]: e["payload"] for e in completed} == {
        agent_id: {"role": role, "result": "", "status": "cancelled"}
        for agent_id, role in spawned.items()
    }
    assert len(spawned) == 2
    assert frames[-1]["payload"]["status"] == "cancelled"
    assert frames[-1]["payload"]["reason"] == "user_cancelled"
    assert status == {"hasActiveRun": False, "isSuspended": False, "backgroundTasks": []}
