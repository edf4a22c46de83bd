"""A served catalog's LangGraph agent (``graph:``): an edit that breaks its graph reference is
refused on the ``graph`` line while the last good version keeps serving; through the admin API,
a spec naming a module is stored, activated and served, and one naming a ``./file.py`` (there is
no catalog file for it to be beside) is refused naming ``graph``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from catalog_harness import catalog_body, models, next_generation, run, serving, write_catalog

from graph_files import GRAPHS
from runyard.testing import scripted_model
from sqlite_databases import MigratedSqlite

TOKEN = "s3cret-admin"
GRAPH_AGENT = (
    "kind: agent\nid: drawer\ndescription: Replies from a graph.\ngraph: ./graphs.py:graph\n"
)


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    directory = write_catalog(tmp_path)
    (directory / "drawer.yaml").write_text(GRAPH_AGENT)
    (directory / "graphs.py").write_text(GRAPHS)
    return directory


def scripted() -> dict[str, object]:
    return {**models(), "runyard:demo": scripted_model([])}


def replies(events: list[dict[str, Any]]) -> str:
    return "".join(e["payload"]["text"] for e in events if e["type"] == "text-delta")


async def test_a_broken_graph_reference_keeps_the_last_good_graph_serving(
    url: str, catalog: Path
) -> None:
    async with serving(url, catalog, scripted()) as app:
        before = await catalog_body(app)
        (catalog / "drawer.yaml").write_text(GRAPH_AGENT.replace(":graph", ":nothing"))
        after = await next_generation(app, before["generation"])
        served = await run(app, "t1", {"message": "hi", "agentId": "drawer"})

    assert after["specs"] == before["specs"]
    broken = next(r for r in after["rejected"] if r["file"].endswith("drawer.yaml"))
    assert broken["lastGood"] is True
    assert broken["errors"] == [
        {
            "file": str(catalog / "drawer.yaml"),
            "line": 4,
            "field": "graph",
            "message": "./graphs.py has no nothing",
        }
    ]
    assert replies(served) == "REPLY"


async def test_the_admin_api_serves_a_module_graph_and_refuses_a_file_one(
    url: str, catalog: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (catalog.parent / "site").mkdir()
    (catalog.parent / "site" / "admin_graphs.py").write_text(GRAPHS)
    monkeypatch.syspath_prepend(str(catalog.parent / "site"))
    async with serving(url, catalog, scripted(), admin_token=TOKEN) as app:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://runyard",
            headers={"Authorization": f"Bearer {TOKEN}"},
        ) as client:
            file_graph = await client.put(
                "/v1/admin/agents/drawer", json={"graph": "./graphs.py:graph"}
            )
            module_graph = await client.put(
                "/v1/admin/agents/drawer", json={"graph": "admin_graphs:graph"}
            )
        served = await run(app, "t1", {"message": "hi", "agentId": "drawer"})
        spec = next(s for s in (await catalog_body(app))["specs"] if s["id"] == "drawer")

    assert file_graph.status_code == 400, file_graph.text
    error = file_graph.json()["error"]
    assert error["code"] == "invalid_agent_spec"
    assert [f["field"] for f in error["fields"]] == ["graph"]
    assert "./graphs.py is a file beside a catalog file" in error["message"]
    assert "name a module instead (package.module:attribute)" in error["message"]
    assert module_graph.status_code == 200, module_graph.text
    assert (spec["origin"], spec["version"]) == ("database", module_graph.json()["version"])
    assert replies(served) == "REPLY"
