"""Orchestration over HTTP: ``delegate`` streams a sub-agent under its own agentId and shows as a
child in the agent tree; ``plan`` stores the checklist and emits ``tasks-update``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from http_harness import ALICE_OWNER, asgi_client, asgi_sse, running_app, settled
from httpx import AsyncClient

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.service.tools import calculator, delegate, list_notes, plan, save_note
from runyard.storage import Plan, Store
from runyard.testing import call, scripted_model, text
from runyard.tools import Tool
from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


def orchestrator(turns: list[Any], *more: Tool) -> Any:
    def build(store: Store) -> list[Agent]:
        model = scripted_model(turns)
        tools = [calculator, plan, delegate, *more]
        return [Agent("assistant", model, tools=tools, memory=Memory(store))]

    return build


async def first_run(app: FastAPI, client: AsyncClient, message: str) -> list[dict[str, Any]]:
    """The events of the run ``message`` starts on the empty thread ``t1``."""
    await client.post("/v1/chat/t1", json={"message": message})
    async with asgi_sse(app, "/v1/events/t1") as stream:
        return [f.data for f in await stream.until("run-finish") if f.data is not None]


async def stored_plan(app: FastAPI) -> Plan | None:
    return await app.state.runyard.parts.store.get_plan(
        ALICE_OWNER.thread_key("t1"), tenant_id="acme", resource_id="alice"
    )


DELEGATION = {
    "role": "math helper",
    "instructions": "You compute.",
    "briefing": "What is 2+3*4?",
    "tools": ["calculator"],
}


async def test_a_delegated_sub_agent_streams_under_its_own_id_inside_the_tree(url: str) -> None:
    turns = [
        call("delegate", DELEGATION, id="call_d"),  # orchestrator
        call("calculator", {"expression": "2+3*4"}, id="call_c"),  # sub-agent
        text("It is 14"),  # sub-agent
        text("The helper says 14"),  # orchestrator
    ]
    async with running_app(url, orchestrator(turns)) as app, asgi_client(app) as client:
        frames = await first_run(app, client, "compute")
        await settled(app, "t1")
        history = (await client.get("/v1/threads/t1/messages")).json()

    (spawned,) = [e for e in frames if e["type"] == "agent-spawned"]
    child = spawned["agentId"]
    assert spawned["payload"]["parentId"] == "agent-001"
    assert spawned["payload"]["role"] == "math helper"
    assert spawned["payload"]["tools"] == ["calculator"]
    sequence = [(e["type"], e["agentId"] == child) for e in frames if e["type"] != "text-delta"]
    assert sequence == [
        ("run-start", False),
        ("tool-call", False),
        ("agent-spawned", True),
        ("tool-call", True),
        ("tool-result", True),
        ("agent-completed", True),
        ("tool-result", False),
        ("run-finish", False),
    ]
    (completed,) = [e for e in frames if e["type"] == "agent-completed"]
    assert completed["payload"] == {"role": "math helper", "result": "It is 14"}
    (delegated,) = [e for e in frames if e["type"] == "tool-result" and e["agentId"] != child]
    assert delegated["payload"]["result"] == {"result": "It is 14"}
    tree = history["messages"][-1]["agentTree"]
    (sub,) = tree["children"]
    assert (sub["agentId"], sub["status"], sub["result"]) == (child, "completed", "It is 14")
    assert sub["toolCalls"][0]["result"] == {"result": 14}


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (
            {"tools": ["plan", "nope"]},
            '"plan" is an orchestration tool and cannot be delegated; '
            '"nope" is not a tool of this agent',
        ),
        ({"tools": []}, '"tools" must contain at least one tool name'),
        (
            {"tools": ["save_note"], "background": True},
            '"save_note" needs approval and cannot run in the background',
        ),
    ],
    ids=["orchestration-and-unknown", "no-tools", "approval-in-background"],
)
async def test_a_refused_delegation_is_a_tool_error_and_spawns_nothing(
    url: str, arguments: dict[str, Any], error: str
) -> None:
    turns = [call("delegate", {**DELEGATION, **arguments}), text("ok")]
    async with (
        running_app(url, orchestrator(turns, save_note)) as app,
        asgi_client(app) as client,
    ):
        frames = await first_run(app, client, "compute")

    kinds = [e["type"] for e in frames if e["type"] != "text-delta"]
    assert kinds == ["run-start", "tool-call", "tool-error", "run-finish"]
    (asked,) = [e["payload"] for e in frames if e["type"] == "tool-call"]
    (refused,) = [e["payload"] for e in frames if e["type"] == "tool-error"]
    assert asked["toolName"] == "delegate"
    assert refused == {"toolCallId": asked["toolCallId"], "error": error}


async def test_plan_stores_the_checklist_each_call_replaces_it_and_runs_restore_it(
    url: str,
) -> None:
    first = {
        "goal": "ship",
        "tasks": [
            {"id": "t1", "description": "build", "status": "in_progress"},
            {"id": "t2", "description": "test", "status": "pending"},
        ],
    }
    second = {
        "goal": "ship",
        "tasks": [{"id": "t1", "description": "build", "status": "completed"}],
    }
    turns = [call("plan", first), call("plan", second), text("planned"), text("hello again")]
    async with running_app(url, orchestrator(turns)) as app, asgi_client(app) as client:
        frames = await first_run(app, client, "make a plan")
        stored = await stored_plan(app)
        await settled(app, "t1")
        history = (await client.get("/v1/threads/t1/messages")).json()
        await client.post("/v1/chat/t1", json={"message": "next"})
        last = {"Last-Event-ID": str(len(frames))}  # ids of the first run are 1..len
        async with asgi_sse(app, "/v1/events/t1", last) as stream:
            next_run = [f.data for f in await stream.until("run-finish")]

    assert [e["type"] for e in next_run[:2]] == ["run-start", "tasks-update"]
    assert next_run[1]["payload"]["tasks"] == second["tasks"]
    updates = [e["payload"]["tasks"] for e in frames if e["type"] == "tasks-update"]
    assert updates == [first["tasks"], second["tasks"]]
    assert stored is not None
    assert stored.data["tasks"] == second["tasks"]
    assert history["messages"][-1]["agentTree"]["tasks"] == second["tasks"]


async def test_plan_moves_the_phase_and_iteration_and_a_call_without_them_keeps_them(
    url: str,
) -> None:
    tasks = [{"id": "t1", "description": "build", "status": "in_progress"}]
    done = [{"id": "t1", "description": "build", "status": "completed"}]
    turns = [
        call("plan", {"goal": "ship", "tasks": tasks, "phase": "building", "iteration": 1}),
        call("plan", {"goal": "ship", "tasks": done}),
        call("plan", {"goal": "ship", "tasks": done, "phase": "inspecting", "iteration": 2}),
        text("planned"),
    ]
    async with running_app(url, orchestrator(turns)) as app, asgi_client(app) as client:
        frames = await first_run(app, client, "make a plan")
        stored = await stored_plan(app)

    results = [e["payload"]["result"] for e in frames if e["type"] == "tool-result"]
    assert [(r["phase"], r["iteration"], r["tasks"]) for r in results] == [
        ("building", 1, tasks),
        ("building", 1, done),
        ("inspecting", 2, done),
    ]
    assert stored is not None
    assert stored.data == results[-1]


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("phase", "shipping", "Input should be 'planning', 'building', 'executing', 'inspecting'"),
        ("iteration", -1, "Input should be greater than or equal to 0"),
        ("iteration", True, "Input should be a valid integer"),
    ],
    ids=["unknown-phase", "negative-iteration", "bool-iteration"],
)
async def test_a_phase_or_iteration_outside_the_plan_model_is_a_tool_error_naming_the_field(
    url: str, field: str, value: object, why: str
) -> None:
    model = scripted_model([call("plan", {"goal": "ship", "tasks": [], field: value}), text("ok")])

    def build(store: Store) -> list[Agent]:
        return [Agent("assistant", model, tools=[plan], memory=Memory(store))]

    async with running_app(url, build) as app, asgi_client(app) as client:
        frames = await first_run(app, client, "make a plan")
        stored = await stored_plan(app)

    kinds = [e["type"] for e in frames if e["type"] != "text-delta"]
    assert kinds == ["run-start", "tool-call", "tool-error", "run-finish"]
    (error,) = [e["payload"]["error"] for e in frames if e["type"] == "tool-error"]
    assert error.startswith(f"Invalid tool input: {field}: {why}")
    assert error in repr(model.requests[-1])  # the model reads it and may call again
    assert stored is None


async def test_a_delegated_sub_agent_acts_for_the_thread_and_user_that_asked(url: str) -> None:
    def build(store: Store) -> list[Agent]:
        turns = [
            call("delegate", {**DELEGATION, "tools": ["list_notes"]}, id="call_d"),
            call("list_notes", {}, id="call_l"),  # sub-agent
            text("No notes yet"),  # sub-agent
            text("You have none"),  # orchestrator
        ]
        tools = [list_notes, plan, delegate]
        return [Agent("assistant", scripted_model(turns), tools=tools, memory=Memory(store))]

    async with running_app(url, build) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "what are my notes?"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = [f.data for f in await stream.until("run-finish")]

    (listed,) = [
        e for e in frames if e["type"] == "tool-result" and e["payload"]["toolCallId"] == "call_l"
    ]
    assert listed["payload"]["result"] == {"notes": []}
    assert "tool-error" not in [e["type"] for e in frames]
