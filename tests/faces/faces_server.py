"""What the streaming face tests share: one real server per module (uvicorn on a free port, in a
thread of its own, serving the built-in ``assistant`` on the demo model over a SQLite file), the
``data:`` frames of a face's stream, the same thread's ``/v1`` event log, and the Node clients
under ``node/`` (``npm ci`` when their ``node_modules`` is missing).

The demo model is scripted by the message: ``/tool NAME {args}`` calls a tool (``save_note`` asks
for approval), ``/delay MS`` slows every delta (for a cancel mid-answer).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from postgres_databases import unavailable
from runyard.config import Settings
from runyard.http import create_app
from runyard.service import ModelFor

__all__ = [
    "NODE_DIR",
    "PLAN_AND_DELEGATE",
    "RunningServer",
    "data_frames",
    "node_script",
    "running",
    "serving",
    "thread_events",
]

NODE_DIR = Path(__file__).parent / "node"

_BRIEFING = json.dumps('/tool calculator {"expression": "1+1"}')
PLAN_AND_DELEGATE = "\n".join(
    [
        '/tool plan {"goal": "g", "tasks": [{"id": "a", "description": "add", "status": "in_progress"}]}',
        '/tool delegate {"role": "adder", "instructions": "add", "briefing": '
        + _BRIEFING
        + ', "tools": ["calculator"]}',
        '/tool plan {"goal": "g", "tasks": [{"id": "a", "description": "add", "status": "completed"}]}',
    ]
)
"""A message the demo model answers with a task list, a sub-agent that calls a tool, and the
task list again."""


@dataclass(frozen=True, slots=True)
class RunningServer:
    """A runyard app served by uvicorn in a thread of its own."""

    url: str
    app: FastAPI
    loop: asyncio.AbstractEventLoop

    async def drain(self) -> None:
        """Drain the app on its loop, as ``runyard serve`` does on SIGTERM before uvicorn
        waits for open connections."""
        state = self.app.state.runyard
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(state.drain(), self.loop))


@contextmanager
def serving(tmp: Path, model_for: ModelFor | None = None, **settings: Any) -> Iterator[str]:
    """A runyard server for the module; its base URL. ``settings`` override the defaults (a
    ``catalog_dir``, ``auth``); ``model_for`` maps the catalog's model names."""
    with running(tmp, model_for, **settings) as server:
        yield server.url


@contextmanager
def running(
    tmp: Path, model_for: ModelFor | None = None, **settings: Any
) -> Iterator[RunningServer]:
    """``serving``'s server itself."""
    chosen = {"database_url": f"sqlite:///{tmp / 'runyard.db'}", "model": "runyard:demo"}
    app = create_app(Settings(**(chosen | settings)), titles=False, model_for=model_for)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:  # uvicorn offers only this flag
        assert thread.is_alive(), "the server stopped while starting"
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield RunningServer(f"http://127.0.0.1:{port}", app, server.servers[0].get_loop())
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        assert not thread.is_alive(), "the server did not stop"


def data_frames(response: httpx.Response) -> list[Any]:
    """The ``data:`` of each frame of a whole stream (JSON, or the bare text when it is none)."""
    frames = []
    for block in response.text.split("\n\n"):
        for line in block.splitlines():
            if line.startswith("data: "):
                text = line[len("data: ") :]
                frames.append(text if text == "[DONE]" else json.loads(text))
    return frames


def thread_events(base: str, thread_id: str, run_id: str | None = None) -> list[dict[str, Any]]:
    """The run's wire events from the thread's ``/v1`` event stream, up to its ``run-finish``
    (``run_id`` None: the thread's first run)."""
    events: list[dict[str, Any]] = []
    with (
        httpx.Client(base_url=base, timeout=30) as client,
        client.stream("GET", f"/v1/events/{thread_id}?lastEventId=0") as stream,
    ):
        for line in stream.iter_lines():
            if not line.startswith("data: "):
                continue
            event = json.loads(line[len("data: ") :])
            run_id = run_id or event["runId"]
            if event["runId"] == run_id:
                events.append(event)
                if event["type"] == "run-finish":
                    return events
    raise AssertionError("the event stream ended before the run's run-finish")


def node_script(script: str, *args: str) -> Any:
    """Run ``node/<script>`` with ``args``; the JSON it prints. Skips (or fails, when the run
    requires its services) without Node."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        unavailable("node and npm are needed for the face clients' own libraries")
        raise AssertionError("unreachable")
    if not (NODE_DIR / "node_modules").is_dir():
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True, timeout=600
        )
    done = subprocess.run(
        [node, script, *args], cwd=NODE_DIR, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{script} failed:\n{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)
