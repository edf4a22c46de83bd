"""LangGraph agents of the catalog in real ``runyard serve`` processes: a ``runtime: langchain``
agent streams over SSE; a run suspended on a ``requires_approval`` tool or on a graph's own
``interrupt()`` is answered after the server was stopped (SIGTERM) or killed (SIGKILL) and
started again; a run killed mid-tool is taken over by another replica from its last super-step
with no tool run twice — the settled call replayed, the call in flight run again only when it is
``retry_safe`` and otherwise reported interrupted. On a SQLite file and on PostgreSQL.

The tools count their executions in files (``counting_tools``), so the test sees every run of a
tool across processes. Waits are for SSE frames, bounded.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from counting_tools import PLUGIN, counted_tools
from http_harness import free_port
from server_process import client_for, frames_until, install_tool_plugin, server

from postgres_databases import private_database, truncate_all

pytestmark = pytest.mark.slow

EXAMPLE_GRAPH = Path(__file__).resolve().parents[2] / "examples" / "agents" / "graphs"

AGENTS = """\
kind: agent
id: helper
runtime: langchain
model: runyard:demo
instructions: Do what is asked.
tools: [charge, slow, save_note]
---
kind: agent
id: palette
graph: ./graphs/palette.py:graph
---
kind: routing
default_agent: helper
"""

TWO_CALLS = '/tool charge {"label": "a"}\n/tool slow {"label": "b"}'


@pytest.fixture(scope="module")
def postgresql_url() -> Iterator[str]:
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_graph_processes")


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'runyard.db'}"
        return
    database: str = request.getfixturevalue("postgresql_url")
    yield database
    asyncio.run(truncate_all(database))


class Site:
    """The catalog directory, the tools' counting folder, and the servers' environment."""

    def __init__(self, tmp_path: Path, *, retry_safe: bool = True) -> None:
        self.work, self.agents = tmp_path / "work", tmp_path / "agents"
        self.work.mkdir()
        self.agents.mkdir()
        install_tool_plugin(tmp_path / "site", "counting", PLUGIN)
        text = counted_tools(self.work, retry_safe=retry_safe) + "---\n" + AGENTS
        (self.agents / "agents.yaml").write_text(text)
        shutil.copytree(EXAMPLE_GRAPH, self.agents / "graphs")
        self.env = {
            "PYTHONPATH": os.pathsep.join(
                p for p in (str(tmp_path / "site"), os.environ.get("PYTHONPATH")) if p
            ),
            "RUNYARD_CATALOG_DIR": str(self.agents),
            "RUNYARD_LEASE_SECONDS": "2",
            # Every start is the same instance again: a restart settles its earlier life's runs.
            "RUNYARD_INSTANCE_ID": "graph-server",
        }

    def runs_of(self, tool: str) -> list[str]:
        """What the tool's executions wrote, in order (``start``, ``done``)."""
        file = self.work / tool
        return file.read_text().split() if file.exists() else []


def events(frames: list[Any]) -> list[dict[str, Any]]:
    return [{**f.data, "id": f.id} for f in frames if f.data is not None]


def text_of(seen: list[dict[str, Any]]) -> str:
    return "".join(e["payload"]["text"] for e in seen if e["type"] == "text-delta")


async def test_a_langchain_agent_streams_its_tool_call_and_answer_over_sse(
    url: str, tmp_path: Path
) -> None:
    site, port = Site(tmp_path), free_port()
    with server(url, port, **site.env):
        async with client_for(port) as client:
            posted = await client.post(
                "/v1/chat/t1", json={"message": '/tool charge {"label": "a"}'}
            )
            seen = events(await frames_until(client, "t1", "run-finish"))

    assert posted.status_code == 200
    types = [e["type"] for e in seen]
    assert types[0] == "run-start"
    assert types.index("tool-call") < types.index("tool-result") < types.index("text-delta")
    assert [e["payload"]["result"] for e in seen if e["type"] == "tool-result"] == ["charge done"]
    assert text_of(seen) == "charge returned charge done."
    assert seen[-1]["payload"]["status"] == "completed"
    assert [e["id"] for e in seen] == list(range(1, len(seen) + 1))
    assert site.runs_of("charge") == ["start", "done"]


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGKILL], ids=["term", "kill"])
@pytest.mark.parametrize(
    ("agent", "message", "answer", "reply"),
    [
        (
            "helper",
            '/tool save_note {"text": "keep"}',
            {"approved": True},
            "save_note returned",
        ),
        (
            "palette",
            "a palette, please",
            {"approved": True, "userInput": "teal"},
            "A palette around teal: pale teal, teal, deep teal.",
        ),
    ],
    ids=["requires_approval", "interrupt"],
)
async def test_a_suspended_langgraph_run_is_answered_after_the_server_restarts(
    url: str,
    tmp_path: Path,
    stop_signal: signal.Signals,
    agent: str,
    message: str,
    answer: dict[str, Any],
    reply: str,
) -> None:
    site, port = Site(tmp_path), free_port()
    with server(url, port, **site.env) as first:
        async with client_for(port) as client:
            await client.post("/v1/chat/t1", json={"message": message, "agentId": agent})
            asked = events(await frames_until(client, "t1", "confirmation-request"))
        first.send_signal(stop_signal)
        first.wait(timeout=30)

    request_id = asked[-1]["payload"]["requestId"]
    with server(url, port, **site.env):
        async with client_for(port) as client:
            status = (await client.get("/v1/threads/t1/status")).json()
            answered = await client.post(f"/v1/confirm/{request_id}", json=answer)
            seen = events(await frames_until(client, "t1", "run-finish"))

    assert status["isSuspended"] is True
    assert answered.status_code == 200, answered.text
    assert seen[-1]["payload"]["status"] == "completed"
    assert reply in text_of(seen)


def _kept(seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a client keeps once ``run-resumed`` dropped the dead server's partial output."""
    kept: list[dict[str, Any]] = []
    for event in seen:
        if event["type"] == "run-resumed":
            after = event["payload"]["afterEventId"]
            kept = [e for e in kept if e["id"] <= after or e["runId"] != event["runId"]]
        kept.append(event)
    return kept


@pytest.mark.parametrize("retry_safe", [True, False], ids=["retry_safe", "not_retry_safe"])
async def test_a_langgraph_run_killed_mid_tool_is_taken_over_with_no_tool_run_twice(
    url: str, tmp_path: Path, retry_safe: bool
) -> None:
    site = Site(tmp_path, retry_safe=retry_safe)
    (site.work / "hold").touch()
    port_a, port_b = free_port(), free_port()
    env = {**site.env, "RUNYARD_INSTANCE_ID": ""}  # two replicas: two instances
    with server(url, port_a, **env) as first, server(url, port_b, **env):
        async with client_for(port_a) as a, client_for(port_b) as b:
            await a.post("/v1/chat/t1", json={"message": TWO_CALLS})
            await frames_until(a, "t1", "status")  # slow is running, and holds
            # charge runs beside slow: its result shown means its outcome is stored.
            await frames_until(a, "t1", "tool-result")
            # Its run on the first server holds until killed; the run again on the second must
            # not hold, whenever the takeover comes.
            (site.work / "hold").unlink()
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=20)
            seen = _kept(events(await frames_until(b, "t1", "run-finish", within=60)))

    assert "run-resumed" in [e["type"] for e in seen]
    assert seen[-1]["payload"]["status"] == "completed"
    names = {
        e["payload"]["toolCallId"]: e["payload"]["toolName"]
        for e in seen
        if e["type"] == "tool-call"
    }
    results = {
        names[e["payload"]["toolCallId"]]: e["payload"].get("result", e["payload"].get("error"))
        for e in seen
        if e["type"] in ("tool-result", "tool-error")
    }
    # charge settled before the kill: its outcome is replayed, never run again.
    assert results["charge"] == "charge done"
    assert site.runs_of("charge") == ["start", "done"]
    if retry_safe:  # in flight at the kill, and safe to run again: it runs once more
        assert results["slow"] == "slow done"
        assert site.runs_of("slow") == ["start", "start", "done"]
    else:  # in flight at the kill: reported interrupted, not run a second time
        assert "interrupted" in str(results["slow"])
        assert site.runs_of("slow") == ["start"]
