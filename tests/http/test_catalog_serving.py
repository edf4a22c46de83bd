"""Serving a catalog (RUNYARD_CATALOG_DIR): routing on chat, run-start's decision, the thread's
agent kept across a confirm and a restart, GET /v1/catalog, POST /v1/route and GET /v1/agents."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from catalog_harness import (
    BILLING_MODEL,
    BROKEN,
    SUPPORT_MODEL,
    confirmation,
    models,
    prompt_of,
    run,
    run_start,
    serving,
    versions,
    write_catalog,
)
from http_harness import asgi_client, asgi_sse, running_app

from runyard.testing import call, text
from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    return write_catalog(tmp_path)


async def test_a_rule_on_ui_page_routes_to_its_agent_with_its_prompt_and_tools(
    url: str, catalog: Path
) -> None:
    scripted = models(support=[text("hello")], billing=[text("invoice")])
    async with serving(url, catalog, scripted) as app:
        billing = await run(app, "t1", {"message": "hi", "context": {"ui_page": "/billing/q3"}})
        support = await run(app, "t2", {"message": "hi", "context": {"ui_page": "/home"}})
        known = await versions(app)
        async with asgi_client(app) as client:
            history = (await client.get("/v1/threads/t1/messages")).json()["messages"]

    # The history names the agent each run ran, as its run-start did (the web UI shows it).
    answer = next(m for m in history if m["role"] == "assistant")
    assert answer["agent"] == {"id": "billing", "version": known["billing"]}

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


async def test_after_the_file_changed_and_a_restart_a_confirm_resumes_on_the_old_version(
    url: str, catalog: Path
) -> None:
    async with serving(url, catalog, models(billing=[call("save_note", {"text": "x"})])) as app:
        async with asgi_client(app) as client:
            await client.post("/v1/chat/t1", json={"message": "n", "agentId": "billing"})
        request_id = await confirmation(app, "t1")
        v1 = (await versions(app))["billing"]

    agents = catalog / "agents.yaml"
    agents.write_text(agents.read_text().replace("Be exact.", "Be very exact."))
    second = models(billing=[text("noted"), text("new run")])
    async with serving(url, catalog, second) as app, asgi_client(app) as client:
        answered = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        later = await run(app, "t2", {"message": "n", "agentId": "billing"})
        v2 = (await versions(app))["billing"]

    assert answered.status_code == 200
    assert frames[-1].data is not None
    assert frames[-1].data["payload"]["status"] == "completed"
    assert "You are BILLING. Be exact." in prompt_of(second[BILLING_MODEL], 0)  # v1, resumed
    assert "Be very exact." in prompt_of(second[BILLING_MODEL], 1)  # v2, a new run
    assert run_start(later)["version"] == v2 != v1


async def test_a_confirm_whose_version_no_database_holds_is_409_and_the_run_waits(
    url: str, catalog: Path
) -> None:
    async with serving(url, catalog, models(billing=[call("save_note", {"text": "x"})])) as app:
        async with asgi_client(app) as client:
            await client.post("/v1/chat/t1", json={"message": "n", "agentId": "billing"})
        request_id = await confirmation(app, "t1")

    # As a run suspended by a runyard that kept no versions (before migration 0006).
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        db.execute("DELETE FROM agent_versions")
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
