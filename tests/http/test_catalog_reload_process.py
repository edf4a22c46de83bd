"""Hot reload in a real ``runyard serve`` process: the catalog file is edited while the server
runs, and the next chat runs the new version with its new tools; a broken edit is refused with
its file and line while that version keeps serving. Waits poll ``GET /v1/catalog``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_harness import free_port
from server_process import client_for, frames_until, server, stop

pytestmark = pytest.mark.slow

AGENT = """\
kind: agent
id: helper
model: runyard:demo
instructions: {instructions}
tools: {tools}
---
kind: routing
default_agent: helper
"""


async def next_generation(client: httpx.AsyncClient, after: int) -> dict[str, Any]:
    """The catalog once a reload changed it; the change must be live within 2 s of the edit
    (the bound is generous: a loaded machine runs the test too)."""
    async with asyncio.timeout(10):
        while True:
            body: dict[str, Any] = (await client.get("/v1/catalog")).json()
            if body["generation"] > after:
                return body
            await asyncio.sleep(0.05)


async def run_start(client: httpx.AsyncClient, thread: str) -> dict[str, Any]:
    assert (await client.post(f"/v1/chat/{thread}", json={"message": "hi"})).status_code == 200
    frames = await frames_until(client, thread, "run-finish")
    assert frames[0].data is not None
    payload: dict[str, Any] = frames[0].data["payload"]
    return payload


def helper_version(catalog: dict[str, Any]) -> str:
    version: str = next(s["version"] for s in catalog["specs"] if s["id"] == "helper")
    return version


async def test_an_edit_while_runyard_serve_runs_is_live_and_a_broken_one_is_refused(
    tmp_path: Path,
) -> None:
    agents = tmp_path / "agents"
    agents.mkdir()
    file = agents / "helper.yaml"
    file.write_text(AGENT.format(instructions="Be brief.", tools="[calculator]"))
    port = free_port()
    with server(f"sqlite:///{tmp_path / 'runyard.db'}", port, RUNYARD_CATALOG_DIR=str(agents)) as p:
        async with client_for(port) as client:
            first = (await client.get("/v1/catalog")).json()
            v1 = await run_start(client, "t1")

            file.write_text(AGENT.format(instructions="Be kind.", tools="[calculator, plan]"))
            second = await next_generation(client, first["generation"])
            v2 = await run_start(client, "t2")
            tools = (await client.get("/v1/agents")).json()["agents"][0]["tools"]

            file.write_text(AGENT.format(instructions="Be kind.", tools="[calculator, web]"))
            third = await next_generation(client, second["generation"])
            still = await run_start(client, "t3")
        assert await stop(p) == 0

    assert v1["version"] == helper_version(first)
    assert v2["version"] == helper_version(second) != v1["version"]
    assert tools == ["calculator", "plan"]
    assert helper_version(third) == v2["version"] == still["version"]
    (rejected,) = third["rejected"]
    assert rejected["lastGood"] is True
    (error,) = rejected["errors"]
    assert (error["file"], error["line"], error["field"]) == (str(file), 5, "tools[1].name")
    assert "unknown tool 'web'" in error["message"]
