"""Shared parts of the SSE benchmarks: the server under test and a light raw-socket SSE client.

The server is ``sse_app:create`` under uvicorn in its own process (one worker). Its agent's
model streams deltas whose text is ``T<monotonic ns>;`` — the moment the model produced it —
so a client on the same machine measures model delta → SSE client latency directly
(``CLOCK_MONOTONIC`` is one clock for every process of a Linux machine).

The client speaks just enough HTTP/1.1 to open a stream and scan its bytes: httpx would be the
bottleneck long before the server is.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "STAMP",
    "free_port",
    "open_stream",
    "percentile",
    "post_json",
    "serve",
    "stop",
    "wait_ready",
]

STAMP = re.compile(rb'"text":"T(\d+);')
HERE = Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serve(db: Path, port: int, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """The benchmark app under uvicorn (one worker, uvloop/httptools if installed)."""
    environment = {
        **os.environ,
        "RUNYARD_DATABASE_URL": f"sqlite:///{db}",
        "RUNYARD_REDIS_URL": "",
        # Ahead of the caller's path, not instead of it: the server must run the runyard the
        # benchmark was started with (a worktree's src), not whatever the venv installed.
        "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH")) if p),
        **env,
    }
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "sse_app:create", "--host", "127.0.0.1",
        "--port", str(port), "--log-level", "warning", "--backlog", "8192",
        "--timeout-keep-alive", "600",
    ]  # fmt: skip
    process = subprocess.Popen(command, env=environment)
    try:
        wait_ready(port)
        yield process
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Ask a server to stop (SIGTERM); kill it if it has not within 30 s."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_ready(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n")
                if b" 200 " in sock.recv(256):
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server on port {port} did not become ready")


def post_json(port: int, path: str, body: bytes) -> int:
    """A blocking POST; returns the status code."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: b\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        sock.sendall(head.encode() + body)
        return int(sock.recv(64).split(b" ", 2)[1])


async def open_stream(
    port: int, path: str, headers: str = ""
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """An SSE request whose response headers have been read."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: b\r\n{headers}\r\n".encode())
    await writer.drain()
    await reader.readuntil(b"\r\n\r\n")
    return reader, writer


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]
