"""Real ``runyard serve`` processes for crash, restart and replica tests, and clients for them.

Each server runs the offline demo model on the database it is given, with the in-process bus
unless ``RUNYARD_REDIS_URL`` is passed. Everything waits for events (the server answering, a
frame arriving) with a bounded timeout, never for a fixed time.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx
from http_harness import ALICE, Frame, FrameParser

__all__ = ["client_for", "frames_until", "install_tool_plugin", "server", "stop"]


def install_tool_plugin(site: Path, name: str, source: str) -> None:
    """Install into the folder ``site`` (put it on the servers' ``PYTHONPATH``) the module
    ``<name>_plugin`` with ``source``, whose ``FACTORY`` is the tool factory ``name`` of the
    entry-point group ``runyard.tools``."""
    module = f"{name}_plugin"
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(source)
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[runyard.tools]\n{name} = {module}:FACTORY\n")


@contextmanager
def server(url: str, port: int, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    """``runyard serve`` on ``url`` and ``port`` in a process of its own (killed at the end if
    it still runs); ``env`` adds or overrides ``RUNYARD_*`` variables. Its clients act for
    ``ALICE`` through the identity headers, so it runs with ``RUNYARD_AUTH=proxy``."""
    environment = {
        **os.environ,
        "RUNYARD_AUTH": "proxy",
        "RUNYARD_DATABASE_URL": url,
        "RUNYARD_MODEL": "runyard:demo",
        "RUNYARD_REDIS_URL": "",
        **env,
    }
    command = [sys.executable, "-m", "runyard", "serve", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, env=environment)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=20)


async def stop(process: subprocess.Popen[bytes]) -> int:
    """Ask the server to stop (SIGTERM) and wait until it has; killed if it takes over 30 s.
    Its exit code."""
    process.terminate()
    try:
        return await asyncio.to_thread(process.wait, 30)
    except subprocess.TimeoutExpired:
        process.kill()
        return await asyncio.to_thread(process.wait, 20)


@asynccontextmanager
async def client_for(port: int, *, within: float = 60) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the server on ``port``, once it is ready (``/readyz`` answers 200, which
    must happen ``within`` seconds)."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", headers=ALICE) as client:
        async with asyncio.timeout(within):
            while True:
                try:
                    if (await client.get("/readyz")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)
        yield client


async def frames_until(
    client: httpx.AsyncClient, thread: str, event_type: str, *, within: float = 30
) -> list[Frame]:
    """The thread's event frames from the start up to the first of ``event_type``, which must
    arrive ``within`` seconds."""
    parser = FrameParser()
    async with (
        asyncio.timeout(within),
        client.stream("GET", f"/v1/events/{thread}", timeout=within) as response,
    ):
        async for chunk in response.aiter_bytes():
            for frame in parser.feed(chunk):
                if frame.data is not None and frame.data["type"] == event_type:
                    return [f for f in parser.frames if f.data is not None]
    raise AssertionError("the stream ended early")
