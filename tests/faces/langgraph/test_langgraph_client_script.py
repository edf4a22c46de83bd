"""The issue's "done when": one LangGraph SDK client script (``lg_client_script.py``), which knows
only a URL and an assistant id, passes against runyard's ``/langgraph`` — and against
``langgraph dev`` serving a fake-model ``create_agent`` graph (``lg_dev/``) where a LangGraph
Server virtualenv exists (``RUNYARD_LANGGRAPH_VENV``, default ``/tmp/lg-venv``), else that half
is skipped."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from faces.faces_server import serving

HERE = Path(__file__).parent
SCRIPT = HERE / "lg_client_script.py"
LANGGRAPH_VENV = Path(os.environ.get("RUNYARD_LANGGRAPH_VENV", "/tmp/lg-venv"))


def run_script(url: str, assistant_id: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), url, assistant_id],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"the client script failed:\n{done.stdout}\n{done.stderr}"
    result: dict[str, Any] = json.loads(done.stdout)
    return result


EVERY_CHECK = [
    "assistants",
    "threads.create",
    "runs.stream",
    "runs.wait",
    "threads.get_state",
    "runs.create+join",
    "threads.search",
    "threads.delete",
]


def test_the_client_script_passes_against_runyard(tmp_path: Path) -> None:
    with serving(tmp_path) as base:
        result = run_script(f"{base}/langgraph", "assistant")
    assert result == {"ok": True, "passed": EVERY_CHECK}


@pytest.fixture
def langgraph_dev(tmp_path: Path) -> Iterator[str]:
    """``langgraph dev`` on a free port, serving ``lg_dev/graph.py`` as ``agent`` from a copy
    (it writes its state, ``.langgraph_api/``, beside its ``langgraph.json``)."""
    cli = LANGGRAPH_VENV / "bin" / "langgraph"
    if not cli.exists():
        pytest.skip(f"no LangGraph Server virtualenv at {LANGGRAPH_VENV} (langgraph dev)")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGSMITH_TRACING": "false"}
    args = ["dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(
        [str(cli), *args],
        cwd=shutil.copytree(HERE / "lg_dev", tmp_path / "lg_dev"),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:  # `langgraph dev` offers no readiness signal but its /ok
            assert server.poll() is None, "langgraph dev stopped while starting"
            assert time.monotonic() < deadline, "langgraph dev did not start"
            try:
                if httpx.get(f"{url}/ok", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


@pytest.mark.slow
def test_the_same_client_script_passes_against_langgraph_dev(langgraph_dev: str) -> None:
    assert run_script(langgraph_dev, "agent") == {"ok": True, "passed": EVERY_CHECK}
