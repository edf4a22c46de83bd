"""``runyard serve`` as a real process: SIGTERM with an SSE client connected (the run finishes
within the grace), and a second server whose port is taken. Both on one SQLite file, with the offline demo model."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from http_harness import Frame, FrameParser, free_port
from server_process import client_for, server, stop

pytestmark = pytest.mark.slow

GRACE_SECONDS = 5
SLOW = "/delay 50\n" + "word " * 10
"""About a second of streaming: it ends well within the grace."""
GOODBYE = Frame(event="server-shutdown", data={"reason": "server_shutdown"})


def _command(db: Path, port: int) -> tuple[list[str], dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(RUNYARD_DATABASE_URL=f"sqlite:///{db}", RUNYARD_MODEL="runyard:demo")
    env.update(RUNYARD_REDIS_URL="", PYTHONUNBUFFERED="1")
    return [sys.executable, "-m", "runyard", "serve", "--port", str(port)], env


@contextmanager
def serving(db: Path, port: int) -> Iterator[subprocess.Popen[bytes]]:
    """``runyard serve`` on ``db`` with a short grace period."""
    with server(f"sqlite:///{db}", port, RUNYARD_SHUTDOWN_GRACE_SECONDS=str(GRACE_SECONDS)) as p:
        yield p


async def _terminate(process: subprocess.Popen[bytes]) -> tuple[int, float]:
    """SIGTERM; the exit code and the seconds it took."""
    started = time.monotonic()
    code = await stop(process)
    return code, time.monotonic() - started


async def test_sigterm_lets_the_run_finish_says_goodbye_to_the_stream_and_exits_0(
    tmp_path: Path,
) -> None:
    db, port = tmp_path / "runyard.db", free_port()
    parser = FrameParser()
    with serving(db, port) as process:
        async with client_for(port) as client:
            await client.post("/v1/chat/t1", json={"message": SLOW})
            async with asyncio.timeout(300), client.stream("GET", "/v1/events/t1") as response:
                exit_task = None
                async for chunk in response.aiter_bytes():
                    parser.feed(chunk)
                    streaming = any(
                        f.data and f.data["type"] == "text-delta" for f in parser.frames
                    )
                    if exit_task is None and streaming:
                        exit_task = asyncio.create_task(_terminate(process))
            assert exit_task is not None
            code, seconds = await exit_task
    with serving(db, port) as restarted:
        async with client_for(port) as client:
            replayed = await _events_until_finish(client, "t1")
        again, _ = await _terminate(restarted)

    seen = [f for f in parser.frames if f.id is not None]
    assert (code, again) == (0, 0)
    assert seconds < GRACE_SECONDS + 5
    assert parser.frames[-1] == GOODBYE
    assert seen[-1].data is not None
    assert seen[-1].data["payload"]["status"] == "completed"
    assert [f.id for f in seen] == list(range(1, len(seen) + 1))
    assert [(f.id, f.data) for f in replayed] == [(f.id, f.data) for f in seen]


async def _events_until_finish(client: httpx.AsyncClient, thread: str) -> list[Frame]:
    parser = FrameParser()
    async with asyncio.timeout(30), client.stream("GET", f"/v1/events/{thread}") as response:
        async for chunk in response.aiter_bytes():
            parser.feed(chunk)
            events = [f for f in parser.frames if f.id is not None]
            if events and events[-1].data and events[-1].data["type"] == "run-finish":
                return events
    raise AssertionError("the stream ended before run-finish")


async def test_a_second_server_on_a_taken_port_exits_at_once_and_changes_nothing(
    tmp_path: Path,
) -> None:
    db, port = tmp_path / "runyard.db", free_port()
    with serving(db, port) as first:
        async with client_for(port) as client:
            # Minutes of deltas (1.5 s each): the run must outlive two server starts on a loaded
            # machine (it is cancelled below).
            long = "/delay 1500\n" + "word " * 200
            await client.post("/v1/chat/t1", json={"message": long})
            parser = FrameParser()
            async with asyncio.timeout(300), client.stream("GET", "/v1/events/t1") as response:
                chunks = response.aiter_bytes()
                while not any(f.data and f.data["type"].endswith("-delta") for f in parser.frames):
                    parser.feed(await anext(chunks))  # streaming (the demo reasons first)
                same_db = await asyncio.to_thread(_second_server, db, port)
                fresh_db = await asyncio.to_thread(_second_server, tmp_path / "fresh.db", port)
                status = (await client.get("/v1/threads/t1/status")).json()
                await client.post("/v1/chat/t1/cancel")
                async for chunk in chunks:
                    parser.feed(chunk)
                    if any(f.data and f.data["type"] == "run-finish" for f in parser.frames):
                        break
        code, _ = await _terminate(first)

    for refused in (same_db, fresh_db):
        assert refused.returncode == 1
        assert refused.stderr.strip().splitlines() == [
            f"runyard: cannot listen on 127.0.0.1:{port}: Address already in use"
        ]
    assert not (tmp_path / "fresh.db").exists()
    assert status["hasActiveRun"] is True
    finish = [f.data for f in parser.frames if f.data and f.data["type"] == "run-finish"]
    assert [(e["payload"]["status"], e["payload"]["reason"]) for e in finish] == [
        ("cancelled", "user_cancelled")
    ]
    assert code == 0


def _second_server(db: Path, port: int) -> subprocess.CompletedProcess[str]:
    command, env = _command(db, port)
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
