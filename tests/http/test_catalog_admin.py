"""The catalog's admin API: off without RUNYARD_ADMIN_TOKEN, a bearer token with it; PUT stores
a version (once per content) that takes the place of the file's spec; versions are listed with
the one that serves; activate switches (a suspended run keeps its version); DELETE returns to the
file; a second app instance on the same database sees every change through the polled revision.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from catalog_harness import (
    BILLING_MODEL,
    SUPPORT_MODEL,
    catalog_body,
    confirmation,
    models,
    prompt_of,
    run,
    run_start,
    serving,
    write_catalog,
)
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse

from runyard.testing import call, text

TOKEN = "s3cret-admin"
ADMIN = {"Authorization": f"Bearer {TOKEN}"}
NEW_SUPPORT = {"model": SUPPORT_MODEL, "instructions": "You are SUPPORT 2.", "tools": ["plan"]}


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    return write_catalog(tmp_path)


def admin(app: FastAPI) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://runyard", headers=ADMIN
    )


async def support_spec(app: FastAPI) -> dict[str, Any]:
    body = await catalog_body(app)
    spec: dict[str, Any] = next(s for s in body["specs"] if s["id"] == "support")
    return spec


async def until(app: FastAPI, done: Callable[[dict[str, Any]], bool]) -> None:
    """Wait until the support agent ``app`` serves satisfies ``done`` (the other instance
    polls the database's revision; the test allows 10 s, the setting 0.2 s)."""
    async with asyncio.timeout(10):
        while True:
            if done(await support_spec(app)):
                return
            await asyncio.sleep(0.02)


async def test_the_admin_api_is_off_without_a_token_and_needs_the_bearer_token_with_one(
    any_backend_url: str, catalog: Path
) -> None:
    async with serving(any_backend_url, catalog, models()) as off, asgi_client(off) as client:
        disabled = await client.get("/v1/admin/agents/support/versions")
    async with serving(any_backend_url, catalog, models(), admin_token=TOKEN) as on:
        async with asgi_client(on) as client:
            missing = await client.get("/v1/admin/agents/support/versions")
            wrong = await client.get(
                "/v1/admin/agents/support/versions", headers={"Authorization": "Bearer nope"}
            )
        async with admin(on) as client:
            listed = await client.get("/v1/admin/agents/support/versions")

    assert (disabled.status_code, disabled.json()["error"]["code"]) == (403, "admin_disabled")
    for refused in (missing, wrong):
        assert (refused.status_code, refused.json()["error"]["code"]) == (
            401,
            "admin_unauthorized",
        )
        assert refused.headers["www-authenticate"] == "Bearer"
        assert refused.json()["error"]["message"] == (
            "the admin API needs the header Authorization with the value Bearer and the "
            "RUNYARD_ADMIN_TOKEN"
        )
    assert listed.status_code == 200
    (file_version,) = listed.json()["versions"]
    assert file_version["origin"] == "file"
    assert file_version["active"] is True
    assert listed.json()["activeOrigin"] == "file"


async def test_put_serves_a_new_version_in_place_of_the_files_and_activate_switches_back(
    any_backend_url: str, catalog: Path
) -> None:
    scripted = models(support=[text("one"), text("two"), text("three")])
    async with serving(any_backend_url, catalog, scripted, admin_token=TOKEN) as app:
        file_spec = await support_spec(app)
        async with admin(app) as client:
            put = (await client.put("/v1/admin/agents/support", json=NEW_SUPPORT)).json()
            again = (await client.put("/v1/admin/agents/support", json=NEW_SUPPORT)).json()
        served = await support_spec(app)
        first = await run(app, "t1", {"message": "hi"})
        async with admin(app) as client:
            listed = (await client.get("/v1/admin/agents/support/versions")).json()
            back = await client.post(
                "/v1/admin/agents/support/activate", json={"version": file_spec["version"]}
            )
        second = await run(app, "t2", {"message": "hi"})
        async with admin(app) as client:
            await client.post("/v1/admin/agents/support/activate", json={"version": put["version"]})
            dropped = (await client.delete("/v1/admin/agents/support/active")).json()
            undropped = (await client.delete("/v1/admin/agents/support/active")).json()
        third = await run(app, "t3", {"message": "hi"})

    assert (put["created"], again["created"], again["version"]) == (True, False, put["version"])
    assert (put["origin"], put["source"], put["active"]) == ("api", "api", True)
    assert served == {**served, "version": put["version"], "origin": "database"}
    assert served["source"] == "database:*/support"
    assert run_start(first)["version"] == put["version"]
    assert "You are SUPPORT 2." in prompt_of(scripted[SUPPORT_MODEL], 0)
    assert scripted[SUPPORT_MODEL].tools_seen[0] == ["plan"]
    assert [(v["origin"], v["active"]) for v in listed["versions"]] == [
        ("file", False),
        ("api", True),
    ]
    assert (listed["activeVersion"], listed["activeOrigin"]) == (put["version"], "database")
    assert back.status_code == 200
    assert run_start(second)["version"] == file_spec["version"]
    assert "You are SUPPORT. Be kind." in prompt_of(scripted[SUPPORT_MODEL], 1)
    assert (dropped["deactivated"], undropped["deactivated"]) == (True, False)
    assert run_start(third)["version"] == file_spec["version"]


async def test_bad_specs_and_unknown_versions_are_refused_naming_the_field(
    any_backend_url: str, catalog: Path
) -> None:
    async with serving(any_backend_url, catalog, models(), admin_token=TOKEN) as app:
        async with admin(app) as client:
            invalid = await client.put(
                "/v1/admin/agents/support", json={**NEW_SUPPORT, "limits": {"max_iterations": 0}}
            )
            unknown_field = await client.put(
                "/v1/admin/agents/support", json={**NEW_SUPPORT, "colour": "red"}
            )
            other_id = await client.put(
                "/v1/admin/agents/support", json={**NEW_SUPPORT, "id": "billing"}
            )
            no_tool = await client.put(
                "/v1/admin/agents/support", json={**NEW_SUPPORT, "tools": ["web"]}
            )
            not_built = await client.put(
                "/v1/admin/agents/support",
                json={**NEW_SUPPORT, "tools": [{"name": "plan", "parameters": {"x": 1}}]},
            )
            missing = await client.post(
                "/v1/admin/agents/support/activate", json={"version": "0" * 64}
            )
            ghost = await client.get("/v1/admin/agents/ghost/versions")
        unchanged = await support_spec(app)

    for response, field in (
        (invalid, "body.limits.max_iterations"),
        (unknown_field, "body.colour"),
    ):
        assert response.status_code == 422, response.text
        assert [f["field"] for f in response.json()["error"]["fields"]] == [field]
    assert (other_id.status_code, other_id.json()["error"]["field"]) == (422, "body.id")
    assert no_tool.status_code == 400
    assert no_tool.json()["error"]["code"] == "invalid_agent_spec"
    assert [f["field"] for f in no_tool.json()["error"]["fields"]] == ["tools[0].name"]
    assert "unknown tool 'web'" in no_tool.json()["error"]["message"]
    assert [f["field"] for f in not_built.json()["error"]["fields"]] == ["tools[0]"]
    assert (missing.status_code, missing.json()["error"]["code"]) == (
        404,
        "agent_version_not_found",
    )
    assert (ghost.status_code, ghost.json()["error"]["code"]) == (404, "agent_not_found")
    assert unchanged["origin"] == "file"


async def test_a_second_instance_on_the_same_database_sees_put_and_activate(
    any_backend_url: str, catalog: Path
) -> None:
    options = {"admin_token": TOKEN, "catalog_poll_seconds": 0.2}
    scripted = models(support=[text("from b")])
    async with (
        serving(any_backend_url, catalog, models(), instance_id="a", **options) as a,
        serving(any_backend_url, catalog, scripted, instance_id="b", **options) as b,
    ):
        file_version = (await support_spec(b))["version"]
        async with admin(a) as client:
            put = (await client.put("/v1/admin/agents/support", json=NEW_SUPPORT)).json()
        await until(b, lambda spec: spec["version"] == put["version"])
        on_b = await run(b, "t1", {"message": "hi"})
        async with admin(b) as client:
            await client.post("/v1/admin/agents/support/activate", json={"version": file_version})
        await until(a, lambda spec: spec["version"] == file_version)

    assert run_start(on_b)["version"] == put["version"]
    assert "You are SUPPORT 2." in prompt_of(scripted[SUPPORT_MODEL])


async def test_a_run_suspended_on_v1_resumes_on_v1_after_v2_is_activated(
    any_backend_url: str, catalog: Path
) -> None:
    scripted = models(billing=[call("save_note", {"text": "x"}), text("noted")])
    v2 = {"model": BILLING_MODEL, "instructions": "You are BILLING 2.", "tools": ["save_note"]}
    async with serving(any_backend_url, catalog, scripted, admin_token=TOKEN) as app:
        async with asgi_client(app) as client:
            await client.post("/v1/chat/t1", json={"message": "n", "agentId": "billing"})
        request_id = await confirmation(app, "t1")
        async with admin(app) as client:
            assert (await client.put("/v1/admin/agents/billing", json=v2)).status_code == 200
        async with asgi_client(app) as client:
            answered = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")

    assert answered.status_code == 200
    assert frames[-1].data is not None
    assert frames[-1].data["payload"]["status"] == "completed"
    assert "You are BILLING. Be exact." in prompt_of(scripted[BILLING_MODEL], 1)
