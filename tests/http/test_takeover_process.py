"""kill -9 of the ``runyard serve`` running a run, mid-tool: a second ``runyard serve`` on the same
database takes the run over and completes it, with no completed tool run twice.

The agent calls ``charge`` (not retry-safe) then ``slow`` (declared retry-safe by its catalog
``kind: tool``), which blocks in the first server. Each tool appends to a file per call, so the
test counts executions across processes. Waits are for SSE frames, bounded.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import pytest
from counting_tools import PLUGIN, counted_tools
from http_harness import free_port
from server_process import client_for, frames_until, install_tool_plugin, server

pytestmark = pytest.mark.slow

AGENT = """\
kind: agent
id: helper
model: runyard:demo
instructions: Do what is asked.
tools: [charge, slow]
---
kind: routing
default_agent: helper
"""

MESSAGE = '/tool charge {"label": "a"}\n/tool slow {"label": "b"}'


def _dropped(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a client keeps once ``run-resumed`` dropped the dead server's partial output."""
    kept: list[dict[str, Any]] = []
    for frame in frames:
        if frame["type"] == "run-resumed":
            after = frame["payload"]["afterEventId"]
            kept = [f for f in kept if f["id"] <= after or f["runId"] != frame["runId"]]
        kept.append(frame)
    return kept


async def test_a_run_killed_mid_tool_is_completed_by_a_second_server(tmp_path: Path) -> None:
    site, work, agents = tmp_path / "site", tmp_path / "work", tmp_path / "agents"
    install_tool_plugin(site, "counting", PLUGIN)
    work.mkdir()
    agents.mkdir()
    (agents / "helper.yaml").write_text(counted_tools(work) + "---\n" + AGENT)
    (work / "hold").touch()
    env = {
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
        "RUNYARD_CATALOG_DIR": str(agents),
        "RUNYARD_LEASE_SECONDS": "2",
    }
    url = f"sqlite:///{tmp_path / 'runyard.db'}"
    port_a, port_b = free_port(), free_port()
    with server(url, port_a, **env) as first, server(url, port_b, **env):
        async with client_for(port_a) as a, client_for(port_b) as b:
            posted = await a.post("/v1/chat/t1", json={"message": MESSAGE})
            assert posted.status_code == 200
            await frames_until(a, "t1", "status")  # slow is running, and holds
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=20)
            (work / "hold").unlink()
            frames = await frames_until(b, "t1", "run-finish", within=30)

    seen = _dropped([{**f.data, "id": f.id} for f in frames if f.data is not None])
    types = [f["type"] for f in seen]
    assert "run-resumed" in types
    assert seen[-1]["payload"]["status"] == "completed"
    results = [
        (f["payload"]["toolCallId"], f["payload"]["result"])
        for f in seen
        if f["type"] == "tool-result"
    ]
    assert sorted(r for _, r in results) == ["charge done", "slow done"]
    assert len({call for call, _ in results}) == 2
    assert (work / "charge").read_text().split() == ["start", "done"]
    assert (work / "slow").read_text().split() == ["start", "start", "done"]
