"""Hot reload of a served catalog: an edit to a file while the app runs is live for the next run
(prompt and tools); a broken edit is refused with file, line and field while the last good
version keeps serving; a run suspended before the edit resumes on the version it started with.
Every test waits for the reload through ``GET /v1/catalog``'s generation, never a fixed time."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from catalog_harness import (
    BILLING_MODEL,
    SUPPORT_MODEL,
    catalog_body,
    confirmation,
    models,
    next_generation,
    prompt_of,
    run,
    run_start,
    serving,
    write_catalog,
)
from http_harness import asgi_client, asgi_sse

from runyard.testing import call, text
from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    return write_catalog(tmp_path)


def edit(file: Path, old: str, new: str) -> None:
    text = file.read_text()
    assert old in text
    file.write_text(text.replace(old, new))


async def test_an_edit_is_live_for_the_next_run_with_its_new_prompt_and_tools(
    url: str, catalog: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="runyard.service")
    scripted = models(support=[text("before"), text("after")])
    async with serving(url, catalog, scripted) as app:
        first = await run(app, "t1", {"message": "hi"})
        before = await catalog_body(app)
        edit(
            catalog / "agents.yaml",
            "You are SUPPORT. Be kind.\ntools: [calculator]",
            "You are SUPPORT v2. Be brief.\ntools: [calculator, list_notes]",
        )
        after = await next_generation(app, before["generation"])
        second = await run(app, "t2", {"message": "hi"})

    versions = {s["id"]: s["version"] for s in after["specs"] if s["kind"] == "agent"}
    assert run_start(first)["version"] != versions["support"]
    assert run_start(second)["version"] == versions["support"]
    assert "You are SUPPORT. Be kind." in prompt_of(scripted[SUPPORT_MODEL], 0)
    assert "You are SUPPORT v2. Be brief." in prompt_of(scripted[SUPPORT_MODEL], 1)
    assert sorted(scripted[SUPPORT_MODEL].tools_seen[1]) == ["calculator", "list_notes"]
    assert after["revision"] != before["revision"]
    assert f"catalog {catalog} reloaded: changed agent support" in caplog.text
    assert "broken.yaml:4: colour: unknown field" in caplog.text  # each reload lists rejections


async def test_a_broken_edit_keeps_the_last_good_version_and_names_file_line_and_field(
    url: str, catalog: Path
) -> None:
    scripted = models(support=[text("still here")])
    async with serving(url, catalog, scripted) as app:
        before = await catalog_body(app)
        edit(catalog / "agents.yaml", "tools: [calculator]\n", "tools: [calculator]\ncolor: red\n")
        after = await next_generation(app, before["generation"])
        served = await run(app, "t1", {"message": "hi"})

    assert after["specs"] == before["specs"]
    rejected = {r["file"]: r for r in after["rejected"]}
    broken = rejected[str(catalog / "agents.yaml")]
    assert broken["lastGood"] is True
    assert broken["errors"] == [
        {
            "file": str(catalog / "agents.yaml"),
            "line": 6,
            "field": "color",
            "message": "unknown field",
        }
    ]
    assert rejected[str(catalog / "broken.yaml")]["lastGood"] is False
    assert run_start(served)["version"] == before["specs"][1]["version"]
    assert "You are SUPPORT. Be kind." in prompt_of(scripted[SUPPORT_MODEL])


async def test_a_spec_the_runtime_cannot_build_is_refused_and_the_old_one_serves(
    url: str, catalog: Path
) -> None:
    async with serving(url, catalog, models()) as app:
        before = await catalog_body(app)
        edit(
            catalog / "agents.yaml",
            "tools: [calculator]\n",
            "tools: [{name: calculator, parameters: {precision: 2}}]\n",
        )
        after = await next_generation(app, before["generation"])

    assert after["specs"] == before["specs"]
    broken = next(r for r in after["rejected"] if r["file"].endswith("agents.yaml"))
    (error,) = broken["errors"]
    assert (error["line"], error["field"]) == (5, "tools[0]")
    assert (
        "tool 'calculator' (calculator): precision: Extra inputs are not permitted"
        in (error["message"])
    )


async def test_a_run_suspended_before_an_edit_resumes_on_the_version_it_started_with(
    url: str, catalog: Path
) -> None:
    scripted = models(billing=[call("save_note", {"text": "x"}), text("noted"), text("v2")])
    async with serving(url, catalog, scripted) as app:
        async with asgi_client(app) as client:
            await client.post("/v1/chat/t1", json={"message": "n", "agentId": "billing"})
        request_id = await confirmation(app, "t1")
        before = await catalog_body(app)
        edit(catalog / "agents.yaml", "You are BILLING. Be exact.", "You are BILLING v2.")
        await next_generation(app, before["generation"])
        async with asgi_client(app) as client:
            answered = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        later = await run(app, "t2", {"message": "n", "agentId": "billing"})
        loaded = await catalog_body(app)

    assert answered.status_code == 200
    assert frames[-1].data is not None
    assert frames[-1].data["payload"]["status"] == "completed"
    billing = scripted[BILLING_MODEL]
    assert "You are BILLING. Be exact." in prompt_of(billing, 1)  # the resumed turn
    assert "You are BILLING v2." in prompt_of(billing, 2)  # a new run
    kept = [(v["agentId"], v["serving"]) for v in loaded["loaded"] if v["agentId"] == "billing"]
    assert kept == [("billing", False), ("billing", True)]
    assert run_start(later)["version"] != run_start([f.data for f in frames if f.data])["version"]
