"""Serving a catalog (RUNYARD_CATALOG_DIR): routing on chat, run-start's decision, the thread's
agent kept across a confirm and a restart, GET /v1/catalog, POST /v1/route and GET /v1/agents."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse, running_app

from runyard.testing import ScriptedModel, call, scripted_model, text
from runyard.testing.scripted import TurnSource

SUPPORT_MODEL = "openai:gpt-4o-mini"
BILLING_MODEL = "anthropic:claude-sonnet-4-5"

AGENTS = f"""\
kind: agent
id: support
model: {SUPPORT_MODEL}
instructions: You are SUPPORT. Be kind.
tools: [calculator]
---
kind: agent
id: billing
description: Invoices and notes.
model: {BILLING_MODEL}
instructions: You are BILLING. Be exact.
tools: [calculator, save_note]
"""

ROUTING = """\
kind: routing
default_agent: support
rules:
  - id: billing-page
    priority: 10
    when: {field: ui_page, regex: "^/billing"}
    agent: billing
"""

BROKEN = """\
kind: agent
id: broken
model: openai:gpt-4o-mini
colour: blue
"""


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runyard.db'}"


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "agents.yaml").write_text(AGENTS)
    (directory / "broken.yaml").write_text(BROKEN)
    (directory / "routing.yaml").write_text(ROUTING)
    return directory


Models = dict[str, ScriptedModel]


def models(support: Sequence[TurnSource] = (), billing: Sequence[TurnSource] = ()) -> Models:
    return {SUPPORT_MODEL: scripted_model(support), BILLING_MODEL: scripted_model(billing)}


@asynccontextmanager
async def serving(
    url: str, catalog: Path, scripted: Models, egress_allow: str = ""
) -> AsyncIterator[FastAPI]:
    settings = {
        "catalog_dir": str(catalog),
        "instance_id": "catalog-server",
        "egress_allow": egress_allow,
    }
    async with running_app(url, settings=settings, model_for=scripted.__getitem__) as app:
        yield app


async def run(app: FastAPI, thread: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of the run ``body`` starts (those after the thread's earlier runs)."""
    async with asgi_client(app) as client:
        history = (await client.get(f"/v1/threads/{thread}/messages")).json()
        after = history["nextEventId"] - 1 if "nextEventId" in history else 0
        response = await client.post(f"/v1/chat/{thread}", json=body)
    assert response.status_code == 200, response.text
    async with asgi_sse(app, f"/v1/events/{thread}?lastEventId={after}") as stream:
        frames = await stream.until("run-finish")
    return [f.data for f in frames if f.data is not None]


def run_start(events: list[dict[str, Any]]) -> dict[str, Any]:
    payload: dict[str, Any] = events[0]["payload"]
    assert events[0]["type"] == "run-start"
    return payload


def prompt_of(model: ScriptedModel, request: int = 0) -> str:
    return repr(model.requests[request])


async def versions(app: FastAPI) -> dict[str, str]:
    async with asgi_client(app) as client:
        body = (await client.get("/v1/catalog")).json()
    return {spec["id"]: spec["version"] for spec in body["specs"] if spec["kind"] == "agent"}


async def test_a_rule_on_ui_page_routes_to_its_agent_with_its_prompt_and_tools(
    url: str, catalog: Path
) -> None:
    scripted = models(support=[text("hello")], billing=[text("invoice")])
    async with serving(url, catalog, scripted) as app:
        billing = await run(app, "t1", {"message": "hi", "context": {"ui_page": "/billing/q3"}})
        support = await run(app, "t2", {"message": "hi", "context": {"ui_page": "/home"}})
        known = await versions(app)

    assert run_start(billing) == {
        "messageId": run_start(billing)["messageId"],
        "agentId": "billing",
        "version": known["billing"],
        "ruleId": "billing-page",
    }
    assert run_start(support) == {
        "messageId": run_start(support)["messageId"],
        "agentId": "support",
        "version": known["support"],
    }
    assert "You are BILLING" in prompt_of(scripted[BILLING_MODEL])
    assert sorted(scripted[BILLING_MODEL].tools_seen[0]) == ["calculator", "save_note"]
    assert "You are SUPPORT" in prompt_of(scripted[SUPPORT_MODEL])
    assert scripted[SUPPORT_MODEL].tools_seen[0] == ["calculator"]


async def test_an_explicit_agent_id_wins_over_the_rules_and_a_thread_keeps_its_agent(
    url: str, catalog: Path
) -> None:
    scripted = models(support=[text("one"), text("two")], billing=[text("three")])
    async with serving(url, catalog, scripted) as app:
        first = await run(
            app, "t1", {"message": "hi", "agentId": "support", "context": {"ui_page": "/billing"}}
        )
        # No agentId: the thread keeps support, whatever the context says now.
        kept = await run(app, "t1", {"message": "again", "context": {"ui_page": "/billing"}})
        switched = await run(app, "t1", {"message": "bills", "agentId": "billing"})

    assert run_start(first)["agentId"] == "support"
    assert "ruleId" not in run_start(first)
    assert run_start(kept)["agentId"] == "support"
    assert run_start(switched)["agentId"] == "billing"
    assert len(scripted[SUPPORT_MODEL].requests) == 2
    assert len(scripted[BILLING_MODEL].requests) == 1


async def test_an_unknown_agent_is_404_and_a_bad_context_is_422_naming_the_field(
    url: str, catalog: Path
) -> None:
    async with serving(url, catalog, models()) as app, asgi_client(app) as client:
        unknown = await client.post("/v1/chat/t1", json={"message": "hi", "agentId": "broken"})
        typed = await client.post(
            "/v1/chat/t1", json={"message": "hi", "context": {"user_role": 3}}
        )
        extra = await client.post("/v1/chat/t1", json={"message": "hi", "context": {"page": "/"}})
        route = await client.post("/v1/route", json={"context": {"flags": []}})

    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "agent_not_found")
    assert "no agent 'broken' for tenant 'acme'" in unknown.json()["error"]["message"]
    for response, field in (
        (typed, "body.context.user_role"),
        (extra, "body.context.page"),
        (route, "body.context.flags"),
    ):
        assert response.status_code == 422
        assert [f["field"] for f in response.json()["error"]["fields"]] == [field]


async def test_the_catalog_lists_loaded_specs_and_the_rejected_file_while_the_good_ones_serve(
    url: str, catalog: Path
) -> None:
    async with serving(url, catalog, models(support=[text("fine")])) as app:
        async with asgi_client(app) as client:
            listed = (await client.get("/v1/catalog")).json()
            agents = (await client.get("/v1/agents")).json()
        served = await run(app, "t1", {"message": "hi"})

    specs = [(s["kind"], s["id"], s["tenant"]) for s in listed["specs"]]
    assert specs == [
        ("agent", "billing", None),
        ("agent", "support", None),
        ("routing", None, None),
    ]
    assert all(len(s["version"]) == 64 for s in listed["specs"])
    (rejected,) = listed["rejected"]
    assert rejected["file"].endswith("broken.yaml")
    assert rejected["errors"] == [
        {"file": rejected["file"], "line": 4, "field": "colour", "message": "unknown field"}
    ]
    assert [(a["name"], a["default"]) for a in agents["agents"]] == [
        ("support", True),
        ("billing", False),
    ]
    assert agents["agents"][1]["tools"] == ["calculator", "save_note"]
    assert run_start(served)["agentId"] == "support"


async def test_the_route_dry_run_explains_every_rule(url: str, catalog: Path) -> None:
    async with serving(url, catalog, models()) as app, asgi_client(app) as client:
        matched = (await client.post("/v1/route", json={"context": {"ui_page": "/billing"}})).json()
        default = (await client.post("/v1/route", json={"context": {"ui_page": "/"}})).json()
        named = await client.post("/v1/route", json={"agentId": "ghost"})

    assert matched["decision"]["agentId"] == "billing"
    assert matched["decision"]["ruleId"] == "billing-page"
    assert matched["decision"]["reason"] == "rule"
    assert [r["outcome"] for r in matched["rules"]] == ["matched"]
    assert default["decision"] == {
        "agentId": "support",
        "version": default["decision"]["version"],
        "ruleId": None,
        "reason": "default",
    }
    (rule,) = default["rules"]
    assert rule["outcome"] == "no-match"
    assert rule["reasons"][0]["field"] == "ui_page"
    assert "does not match" in rule["reasons"][0]["explanation"]
    assert named.status_code == 404


async def confirmation(app: FastAPI, thread: str) -> str:
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        frames = await stream.until("confirmation-request")
    assert frames[-1].data is not None
    request_id: str = frames[-1].data["payload"]["requestId"]
    return request_id


async def test_a_confirm_after_a_restart_resumes_on_the_agent_and_version_the_run_started_with(
    url: str, catalog: Path
) -> None:
    note = call("save_note", {"text": "pay rent"})
    first = models(billing=[note])
    async with serving(url, catalog, first) as app, asgi_client(app) as client:
        await client.post(
            "/v1/chat/t1", json={"message": "note", "context": {"ui_page": "/billing"}}
        )
        request_id = await confirmation(app, "t1")

    second = models(billing=[text("noted")])
    async with serving(url, catalog, second) as app, asgi_client(app) as client:
        answered = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    assert answered.status_code == 200
    assert frames[-1].data is not None
    assert frames[-1].data["payload"]["status"] == "completed"
    assert "You are BILLING" in prompt_of(second[BILLING_MODEL])
    assert second[SUPPORT_MODEL].requests == []


async def test_a_confirm_whose_agent_version_left_the_catalog_is_409_and_the_run_waits(
    url: str, catalog: Path
) -> None:
    async with serving(url, catalog, models(billing=[call("save_note", {"text": "x"})])) as app:
        async with asgi_client(app) as client:
            await client.post("/v1/chat/t1", json={"message": "n", "agentId": "billing"})
        request_id = await confirmation(app, "t1")

    agents = catalog / "agents.yaml"
    agents.write_text(agents.read_text().replace("Be exact.", "Be very exact."))
    async with serving(url, catalog, models()) as app, asgi_client(app) as client:
        refused = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        status = (await client.get("/v1/threads/t1/status")).json()
        cancelled = await client.post("/v1/chat/t1/cancel")

    assert (refused.status_code, refused.json()["error"]["code"]) == (
        409,
        "agent_version_unavailable",
    )
    assert status["isSuspended"] is True
    assert cancelled.status_code == 200


async def test_a_catalog_with_no_agents_fails_start_up_with_the_reason(
    url: str, tmp_path: Path
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "broken.yaml").write_text(BROKEN)
    with pytest.raises(Exception, match="the catalog has no agents to serve") as failure:
        async with serving(url, empty, models()):
            pass
    assert "broken.yaml:4: colour: unknown field" in str(failure.value)


async def test_without_a_catalog_the_built_in_assistant_serves_and_the_catalog_is_404(
    url: str,
) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        listed = await client.get("/v1/catalog")
        routed = await client.post("/v1/route", json={})
        agents = (await client.get("/v1/agents")).json()

    assert (listed.status_code, listed.json()["error"]["code"]) == (404, "catalog_not_served")
    assert routed.status_code == 404
    assert [a["name"] for a in agents["agents"]] == ["assistant"]
