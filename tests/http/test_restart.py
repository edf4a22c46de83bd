"""Durability across a server process: a run suspended for a confirmation is confirmed after
the process was killed and restarted; a run killed mid-stream is closed by the crash sweep."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from http_harness import Frame, FrameParser, free_port, ready_client

pytestmark = pytest.mark.slow


@contextmanager
def server(db: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    """``runyard.http:create_app`` under uvicorn in its own process, on the demo model."""
    env = {
        **os.environ,
        "RUNYARD_DATABASE_URL": f"sqlite:///{db}",
        "RUNYARD_MODEL": "runyard:demo",
        "RUNYARD_REDIS_URL": "",
    }
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "runyard.http:create_app",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip
    process = subprocess.Popen(command, env=env)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=20)


async def frames_until(client: httpx.AsyncClient, thread: str, event_type: str) -> list[Frame]:
    parser = FrameParser()
    async with asyncio.timeout(30), client.stream("GET", f"/v1/events/{thread}") as response:
        async for chunk in response.aiter_bytes():
            for frame in parser.feed(chunk):
                if frame.data is not None and frame.data["type"] == event_type:
                    return [f for f in parser.frames if f.data is not None]
    raise AssertionError("the stream ended early")


async def test_a_suspended_run_is_confirmed_after_the_server_restarts(tmp_path: Path) -> None:
    db, port = tmp_path / "runyard.db", free_port()
    with server(db, port) as first:
        async with ready_client(port) as client:
            await client.post("/v1/chat/t1", json={"message": '/tool save_note {"text": "keep"}'})
            asked = await frames_until(client, "t1", "confirmation-request")
        first.send_signal(signal.SIGKILL)

    request_id = asked[-1].data["payload"]["requestId"] if asked[-1].data else ""
    with server(db, port):
        async with ready_client(port) as client:
            status = (await client.get("/v1/threads/t1/status")).json()
            answered = await client.post(f"/v1/confirm/{request_id}", json={"approved": True})
            frames = await frames_until(client, "t1", "run-finish")

    assert status["isSuspended"] is True
    assert answered.status_code == 200
    data = [f.data for f in frames if f.data is not None]
    (result,) = [e for e in data if e["type"] == "tool-result"]
    assert result["payload"]["result"]["text"] == "keep"
    assert data[-1]["payload"] == {"status": "completed"}
    assert [f.id for f in frames] == list(range(1, len(frames) + 1))


async def test_a_run_killed_mid_stream_is_closed_by_the_crash_sweep(tmp_path: Path) -> None:
    db, port = tmp_path / "runyard.db", free_port()
    with server(db, port) as first:
        async with ready_client(port) as client:
            await client.post("/v1/chat/t1", json={"message": "/delay 200\n" + "word " * 50})
            await frames_until(client, "t1", "text-delta")
        first.send_signal(signal.SIGKILL)

    with server(db, port):
        async with ready_client(port) as client:
            frames = await frames_until(client, "t1", "run-finish")
            again = await client.post("/v1/chat/t1", json={"message": "hello again"})

    assert frames[-1].data is not None
    assert frames[-1].data["payload"] == {"status": "error", "reason": "server restarted"}
    assert again.status_code == 200
