"""Durability across a server process: a run suspended for a confirmation (its own, or a
delegated sub-agent's) is confirmed after the process was killed and restarted; a run killed
mid-stream is closed by the crash sweep."""

from __future__ import annotations

import json
import signal
import subprocess
from contextlib import AbstractContextManager
from pathlib import Path
from unittest.mock import ANY

import pytest
from http_harness import free_port
from server_process import client_for, frames_until, server

pytestmark = pytest.mark.slow


def restartable(db: Path, port: int) -> AbstractContextManager[subprocess.Popen[bytes]]:
    """The server on ``db``; every start is the same instance again (``RUNYARD_INSTANCE_ID``),
    so a restart settles at once the runs its killed previous life held."""
    return server(f"sqlite:///{db}", port, RUNYARD_INSTANCE_ID="restarted-server")


async def test_a_suspended_run_is_confirmed_after_the_server_restarts(tmp_path: Path) -> None:
    db, port = tmp_path / "runyard.db", free_port()
    with restartable(db, port) as first:
        async with client_for(port) as client:
            await client.post("/v1/chat/t1", json={"message": '/tool save_note {"text": "keep"}'})
            asked = await frames_until(client, "t1", "confirmation-request")
        first.send_signal(signal.SIGKILL)

    request_id = asked[-1].data["payload"]["requestId"] if asked[-1].data else ""
    with restartable(db, port):
        async with client_for(port) as client:
            status = (await client.get("/v1/threads/t1/status")).json()
            answered = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
            frames = await frames_until(client, "t1", "run-finish")

    assert status["isSuspended"] is True
    assert answered.status_code == 200
    data = [f.data for f in frames if f.data is not None]
    (result,) = [e for e in data if e["type"] == "tool-result"]
    assert result["payload"]["result"]["text"] == "keep"
    assert data[-1]["payload"] == {"status": "completed", "usage": ANY}
    assert [f.id for f in frames] == list(range(1, len(frames) + 1))


async def test_a_run_killed_mid_stream_is_carried_on_after_the_restart(tmp_path: Path) -> None:
    db, port = tmp_path / "runyard.db", free_port()
    with restartable(db, port) as first:
        async with client_for(port) as client:
            await client.post("/v1/chat/t1", json={"message": "/delay 50\n" + "word " * 50})
            await frames_until(client, "t1", "text-delta")
        first.send_signal(signal.SIGKILL)

    with restartable(db, port):
        async with client_for(port) as client:
            frames = await frames_until(client, "t1", "run-finish")
            again = await client.post("/v1/chat/t1", json={"message": "hello again"})

    assert frames[-1].data is not None
    assert frames[-1].data["payload"]["status"] == "completed"
    assert "run-resumed" in [f.data["type"] for f in frames if f.data]
    assert again.status_code == 200


async def test_a_sub_agents_approval_is_confirmed_after_the_server_restarts(tmp_path: Path) -> None:
    delegation = {
        "role": "keeper",
        "instructions": "You keep notes.",
        "briefing": '/tool save_note {"text": "keep"}',  # the demo sub-agent calls save_note
        "tools": ["save_note"],
    }
    db, port = tmp_path / "runyard.db", free_port()
    with restartable(db, port) as first:
        async with client_for(port) as client:
            await client.post(
                "/v1/chat/t1", json={"message": f"/tool delegate {json.dumps(delegation)}"}
            )
            asked = await frames_until(client, "t1", "confirmation-request")
        first.send_signal(signal.SIGKILL)

    question = asked[-1].data or {}
    with restartable(db, port):
        async with client_for(port) as client:
            answered = await client.post(
                f"/v1/confirm/{question['payload']['requestId']}", json={"approved": True}
            )
            frames = await frames_until(client, "t1", "run-finish")

    data = [f.data for f in frames if f.data is not None]
    (spawned,) = [e for e in data if e["type"] == "agent-spawned"]
    child = spawned["agentId"]
    assert (question["agentId"], question["payload"]["toolName"]) == (child, "save_note")
    assert answered.status_code == 200
    (saved,) = [e for e in data if e["type"] == "tool-result" and e["agentId"] == child]
    assert saved["payload"]["result"]["text"] == "keep"
    (completed,) = [e for e in data if e["type"] == "agent-completed"]
    (delegated,) = [e for e in data if e["type"] == "tool-result" and e["agentId"] != child]
    assert delegated["payload"]["result"] == {"result": completed["payload"]["result"]}
    assert completed["payload"]["result"]
    assert data[-1]["payload"] == {"status": "completed", "usage": ANY}
