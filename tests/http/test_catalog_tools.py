"""Catalog agents served with tools from factories: a ``kind: tool`` instance of ``http_request``
against a local server, a toolkit with a grant, ``delegate`` limited to ``sub_agents``, ``agent``
with its usage merged, a plugin's factory with the one shared client, progress as ``status``."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from catalog_harness import confirmation, run, serving
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse

from http_target_server import HttpTarget, http_target
from runyard.testing import ScriptedModel, ToolCall, Turn, TurnUsage, call, scripted_model, text
from sqlite_databases import MigratedSqlite
from tool_plugins import Install

FRONT_MODEL = "openai:gpt-4o-mini"
BACK_MODEL = "anthropic:claude-sonnet-4-5"

CATALOG = """\
kind: agent
id: front
model: openai:gpt-4o-mini
instructions: You are FRONT.
tools:
  - intranet
  - {name: notes, grant: [list_notes]}
  - delegate
  - ask_back
sub_agents: [back]
---
kind: agent
id: back
model: anthropic:claude-sonnet-4-5
instructions: You are BACK.
tools: [calculator, save_note]
---
kind: tool
id: intranet
factory: http_request
parameters:
  allowed_domains: ["127.0.0.1"]
---
kind: tool
id: ask_back
factory: agent
description: Ask BACK to add things up.
parameters: {agent: back}
---
kind: routing
default_agent: front
"""

PLUGIN = '''
from runyard.registry.tools import ToolConfiguration
from runyard.tools import tool

CLIENTS = []


class EchoFactory:
    """One tool that says its text back after the spec's ``prefix``, telling how it goes."""

    def build(self, context, deps, exec_ctx):
        CLIENTS.append(deps.http)
        prefix = exec_ctx.get_parameter("prefix", default="")

        @tool(name=context.name)
        def echo(text: str) -> str:
            """Say the text back."""
            exec_ctx.emit_progress(f"echoing {text}")
            return prefix + text

        return ToolConfiguration.single(echo, context)
'''

PLUGIN_CATALOG = """\
kind: agent
id: front
model: openai:gpt-4o-mini
tools: [{name: echo, parameters: {prefix: "> "}}]
---
kind: agent
id: back
model: anthropic:claude-sonnet-4-5
tools: [echo]
---
kind: routing
default_agent: front
"""

Scripted = dict[str, ScriptedModel]


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
async def target() -> AsyncIterator[HttpTarget]:
    async with http_target() as server:
        yield server


def catalog_of(tmp_path: Path, text: str) -> Path:
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "agents.yaml").write_text(text)
    return directory


def scripted(front: list[Turn], back: list[Turn] | None = None) -> Scripted:
    return {FRONT_MODEL: scripted_model(front), BACK_MODEL: scripted_model(back or [])}


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [event["payload"] for event in events if event["type"] == kind]


async def chat(app: FastAPI, message: str = "go") -> list[dict[str, Any]]:
    return await run(app, "t1", {"message": message})


async def test_a_kind_tool_instance_of_http_request_reaches_its_allow_list_and_asks_for_others(
    url: str, tmp_path: Path, target: HttpTarget
) -> None:
    allowed = {"method": "GET", "url": target.url("127.0.0.1", "/wiki")}
    other = {"method": "GET", "url": target.url("localhost", "/secret")}
    models = scripted([call("intranet", allowed), call("intranet", other)])
    # The test server is on loopback, which the egress guard refuses unless the operator allows it.
    async with serving(url, catalog_of(tmp_path, CATALOG), models, egress_allow="127.0.0.1") as app:
        async with asgi_client(app) as client:
            await client.post("/v1/chat/t1", json={"message": "read the wiki"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("confirmation-request")

    events = [frame.data for frame in frames if frame.data is not None]
    [result] = of_type(events, "tool-result")
    assert result["result"]["status"] == 200
    assert [(r.method, r.path) for r in target.requests] == [("GET", "/wiki")]
    question = events[-1]["payload"]
    assert question["domainAccess"] == {"url": other["url"], "host": "localhost"}


async def test_served_tools_reach_no_internal_address_the_operator_did_not_allow(
    url: str, tmp_path: Path, target: HttpTarget
) -> None:
    allowed_by_the_spec = {"method": "GET", "url": target.url("127.0.0.1", "/wiki")}
    models = scripted([call("intranet", allowed_by_the_spec), text("done")])
    async with serving(url, catalog_of(tmp_path, CATALOG), models) as app:
        events = await chat(app, "read the wiki")

    [refused] = of_type(events, "tool-error")
    assert "request to 127.0.0.1 refused" in refused["error"]
    assert target.requests == []


async def test_a_toolkit_offers_only_the_granted_tools(url: str, tmp_path: Path) -> None:
    models = scripted([call("save_note", {"text": "x"}), call("list_notes"), text("none")])
    async with serving(url, catalog_of(tmp_path, CATALOG), models) as app:
        events = await chat(app)

    offered = models[FRONT_MODEL].tools_seen[0]
    assert "list_notes" in offered
    assert "save_note" not in offered
    [refused] = of_type(events, "tool-error")
    assert "save_note" in refused["error"]
    [listed] = of_type(events, "tool-result")
    assert listed["result"] == {"notes": []}


async def test_delegate_hands_tasks_to_the_sub_agents_only(url: str, tmp_path: Path) -> None:
    stranger = {"agent": "assistant", "briefing": "add 2 and 3"}
    listed = {"agent": "back", "briefing": "add 2 and 3"}
    models = scripted(
        [call("delegate", stranger), call("delegate", listed), text("5")], back=[text("It is 5.")]
    )
    async with serving(url, catalog_of(tmp_path, CATALOG), models) as app:
        events = await chat(app)

    [refused] = of_type(events, "tool-error")
    assert refused["error"].endswith("'assistant' is not one of this agent's sub-agents (back)")
    [spawned] = of_type(events, "agent-spawned")
    assert (spawned["role"], spawned["kind"], spawned["tools"]) == (
        "back",
        "delegate",
        ["calculator", "save_note"],
    )
    [answer] = of_type(events, "tool-result")
    assert answer["result"] == {"result": "It is 5."}
    assert "You are BACK" in repr(models[BACK_MODEL].requests[0])
    assert "add 2 and 3" in repr(models[BACK_MODEL].requests[0])


async def test_a_sub_agent_that_may_ask_is_refused_in_the_background(
    url: str, tmp_path: Path
) -> None:
    background = {"agent": "back", "briefing": "add", "background": True}
    models = scripted([call("delegate", background), text("ok")])
    async with serving(url, catalog_of(tmp_path, CATALOG), models) as app:
        events = await chat(app)

    [refused] = of_type(events, "tool-error")
    assert refused["error"].endswith(
        "'back' has tools that need approval (save_note) and cannot work in the background"
    )
    assert of_type(events, "agent-spawned") == []
    assert models[BACK_MODEL].requests == []


async def test_an_agent_tool_answers_with_the_other_agent_and_its_usage_counts_for_the_run(
    url: str, tmp_path: Path
) -> None:
    ask = Turn(tool_calls=[ToolCall("ask_back", {"input": "2+3?"})], usage=TurnUsage(5, 1))
    models = scripted(
        [ask, text("BACK says 5", usage=TurnUsage(10, 2))],
        back=[text("5", usage=TurnUsage(100, 20))],
    )
    async with serving(url, catalog_of(tmp_path, CATALOG), models) as app:
        events = await chat(app)

    [spawned] = of_type(events, "agent-spawned")
    assert (spawned["role"], spawned["kind"]) == ("back", "agent")
    [answer] = of_type(events, "tool-result")
    assert answer["result"] == {"result": "5"}
    [finish] = of_type(events, "run-finish")
    assert finish["usage"] == {
        "inputTokens": 115,
        "outputTokens": 23,
        "totalTokens": 138,
        "models": ["function:scripted"],
    }


async def test_a_plugin_factory_serves_with_the_one_shared_client_closed_at_shutdown(
    url: str, tmp_path: Path, install: Install
) -> None:
    install("runyard-echo-plugin", "echo = runyard_echo_plugin:EchoFactory", PLUGIN)
    models = scripted([call("echo", {"text": "hi"}), text("done")])
    async with serving(url, catalog_of(tmp_path, PLUGIN_CATALOG), models) as app:
        events = await chat(app)
        clients = list(sys.modules["runyard_echo_plugin"].CLIENTS)
        assert not clients[0].is_closed

    assert len(clients) == 2  # one build per agent, at start-up, none per call
    assert clients[0] is clients[1]
    assert not clients[0].trust_env
    assert clients[0].is_closed
    [echoed] = of_type(events, "tool-result")
    assert echoed["result"] == "> hi"


async def test_progress_a_tool_emits_reaches_the_thread_as_a_status_event(
    url: str, tmp_path: Path, install: Install
) -> None:
    install("runyard-echo-plugin", "echo = runyard_echo_plugin:EchoFactory", PLUGIN)
    models = scripted([call("echo", {"text": "hi"}), text("done")])
    async with serving(url, catalog_of(tmp_path, PLUGIN_CATALOG), models) as app:
        events = await chat(app)

    kinds = [event["type"] for event in events]
    assert of_type(events, "status") == [{"message": "echoing hi"}]
    assert kinds.index("tool-call") < kinds.index("status") < kinds.index("tool-result")


async def test_a_confirm_resumes_a_run_waiting_on_a_kind_tool_instance(
    url: str, tmp_path: Path, target: HttpTarget
) -> None:
    other = {"method": "GET", "url": target.url("localhost", "/page")}
    models = scripted([call("intranet", other), text("read it")])
    async with serving(url, catalog_of(tmp_path, CATALOG), models, egress_allow="localhost") as app:
        async with asgi_client(app) as client:
            await client.post("/v1/chat/t1", json={"message": "read"})
            request_id = await confirmation(app, "t1")
            answered = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    assert answered.status_code == 200
    events = [frame.data for frame in frames if frame.data is not None]
    [result] = of_type(events, "tool-result")
    assert result["result"]["status"] == 200
    assert [(r.method, r.path) for r in target.requests] == [("GET", "/page")]


async def test_a_sub_agents_question_suspends_the_run_and_the_answer_resumes_it_on_that_agent(
    url: str, tmp_path: Path
) -> None:
    models = scripted(
        [call("delegate", {"agent": "back", "briefing": "note the rent"}), text("noted")],
        back=[call("save_note", {"text": "rent"}), text("Saved.")],
    )
    async with serving(url, catalog_of(tmp_path, CATALOG), models) as app:
        async with asgi_client(app) as client:
            await client.post("/v1/chat/t1", json={"message": "remember the rent"})
            request_id = await confirmation(app, "t1")
            answered = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    assert answered.status_code == 200
    events = [frame.data for frame in frames if frame.data is not None]
    assert events[-1]["payload"]["status"] == "completed"
    [completed] = of_type(events, "agent-completed")
    assert completed["result"] == "Saved."
    assert len(models[BACK_MODEL].requests) == 2
    assert "You are BACK" in repr(models[BACK_MODEL].requests[1])
