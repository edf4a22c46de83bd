"""A delegated sub-agent that needs an approval: its question reaches the SSE client under the
sub-agent's agentId, the whole run waits, and the answer resumes the sub-agent, then the
orchestrator, which gets the sub-agent's result as the ``delegate`` call's result."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest
from http_harness import asgi_client, asgi_sse, running_app, settled

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.service.tools import delegate, plan, save_note
from runyard.storage import Store
from runyard.testing import call, scripted_model, text
from sqlite_databases import MigratedSqlite

DELEGATION = {
    "role": "note keeper",
    "instructions": "You keep notes.",
    "briefing": "Save the note 'keep'.",
    "tools": ["save_note"],
}


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


def orchestrator(store: Store) -> list[Agent]:
    turns = [
        call("delegate", DELEGATION, id="call_d"),  # orchestrator
        call("save_note", {"text": "keep"}, id="call_s"),  # sub-agent: waits for approval
        text("Saved it."),  # sub-agent, once approved
        text("The keeper saved it."),  # orchestrator
    ]
    tools = [save_note, plan, delegate]
    return [Agent("assistant", scripted_model(turns), tools=tools, memory=Memory(store))]


def kinds(frames: list[dict[str, Any]], child: str) -> list[tuple[str, bool]]:
    """Each event's type and whether the sub-agent sent it (text deltas left out)."""
    return [(e["type"], e["agentId"] == child) for e in frames if e["type"] != "text-delta"]


async def test_a_sub_agents_approval_is_asked_under_its_agent_id_and_resumes_the_run(
    url: str,
) -> None:
    async with running_app(url, orchestrator) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "save keep"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            asked = [f.data for f in await stream.until("confirmation-request")]
        status = (await client.get("/v1/threads/t1/status")).json()
        request_id = asked[-1]["payload"]["requestId"]
        answered = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = [f.data for f in await stream.until("run-finish")]
        await settled(app, "t1")
        history = (await client.get("/v1/threads/t1/messages")).json()

    (spawned,) = [e for e in frames if e["type"] == "agent-spawned"]
    child = spawned["agentId"]
    question = asked[-1]
    assert (question["agentId"], question["payload"]["toolCallId"]) == (child, "call_s")
    assert question["payload"]["toolName"] == "save_note"
    assert question["payload"]["args"] == {"text": "keep"}
    assert status["isSuspended"] is True
    assert answered.json() == {"ok": True}
    assert kinds(frames, child) == [
        ("run-start", False),
        ("tool-call", False),
        ("agent-spawned", True),
        ("tool-call", True),
        ("confirmation-request", True),
        ("tool-result", True),
        ("agent-completed", True),
        ("tool-result", False),
        ("run-finish", False),
    ]
    (saved,) = [e for e in frames if e["type"] == "tool-result" and e["agentId"] == child]
    assert saved["payload"]["result"]["text"] == "keep"
    (completed,) = [e for e in frames if e["type"] == "agent-completed"]
    assert completed["payload"] == {"role": "note keeper", "result": "Saved it."}
    (delegated,) = [e for e in frames if e["type"] == "tool-result" and e["agentId"] != child]
    assert delegated["payload"] == {"toolCallId": "call_d", "result": {"result": "Saved it."}}
    assert frames[-1]["payload"] == {"status": "completed", "usage": ANY}
    tree = history["messages"][-1]["agentTree"]
    (sub,) = tree["children"]
    assert (sub["agentId"], sub["status"], sub["result"]) == (child, "completed", "Saved it.")
    (gated,) = sub["toolCalls"]
    assert gated["confirmation"]["requestId"] == request_id


async def test_a_denied_sub_agent_call_lets_the_sub_agent_and_the_run_go_on(url: str) -> None:
    async with running_app(url, orchestrator) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "save keep"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            asked = [f.data for f in await stream.until("confirmation-request")]
        request_id = asked[-1]["payload"]["requestId"]
        await client.post(f"/v1/confirm/{request_id}", json={"approved": False})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = [f.data for f in await stream.until("run-finish")]

    child = asked[-1]["agentId"]
    (refused,) = [e for e in frames if e["type"] == "tool-error"]
    assert refused["agentId"] == child
    assert "denied" in refused["payload"]["error"]
    assert [e["type"] for e in frames if e["type"] == "agent-completed"] == ["agent-completed"]
    assert frames[-1]["payload"] == {"status": "completed", "usage": ANY}
