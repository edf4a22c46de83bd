"""How many concurrent SSE connections one uvicorn worker holds.

    python benchmarks/sse_connections.py [--connections 5000] [--procs 4] [--ping 5] [--json PATH]

Opens ``--connections`` SSE streams (each on its own thread id) from ``--procs`` client
processes (each with at most 25 connections opening at a time), then waits until every stream has received a ``: ping`` keep-alive (sent after
``--ping`` idle seconds) — proof that the worker still serves each one — and reads the
server's resident memory. Loopback only; each client waits at most a bounded time.
``--json PATH`` writes the summary row against the target: 5,000 streams alive.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _report import at_least, json_option, write_rows
from sse_common import free_port, open_stream, serve

PING = b": ping\n\n"
OPENING = 25
"""Connections each client process has in the middle of opening at once."""
TARGET = 5000


async def _hold(
    port: int,
    thread: str,
    opened: list[int],
    pinged: list[int],
    gate: asyncio.Semaphore,
    everyone: asyncio.Event,
    count: int,
) -> None:
    async with gate:  # clients arrive in a stream, not all in the same millisecond
        reader, writer = await open_stream(port, f"/v1/events/{thread}")
    opened.append(1)
    try:
        data = b""
        while PING not in data:
            chunk = await reader.read(4096)
            if not chunk:
                return
            data += chunk
        pinged.append(1)
        if len(pinged) == count:
            everyone.set()
        await asyncio.sleep(3600)  # hold until the driver ends this process
    finally:
        writer.close()


async def _client(port: int, first: int, count: int, patience: float) -> None:
    opened: list[int] = []
    pinged: list[int] = []
    gate, everyone = asyncio.Semaphore(OPENING), asyncio.Event()
    tasks = [
        asyncio.create_task(_hold(port, f"conn-{n}", opened, pinged, gate, everyone, count))
        for n in range(first, first + count)
    ]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(everyone.wait(), patience)
    failed = sum(1 for t in tasks if t.done() and t.exception() is not None)
    print(f"{len(opened)} {len(pinged)} {failed}", flush=True)
    await asyncio.sleep(3600)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main(args: argparse.Namespace) -> None:
    share = args.connections // args.procs
    port = free_port()
    with (
        tempfile.TemporaryDirectory() as tmp,
        serve(Path(tmp) / "bench.db", port, SSE_BENCH_PING_SECONDS=str(args.ping)) as server,
    ):
        idle_rss = _rss_mb(server.pid)
        started = time.monotonic()
        clients = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--client",
                    str(port),
                    str(i * share),
                    str(share),
                    str(args.timeout),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            for i in range(args.procs)
        ]
        counts = []
        for client in clients:
            assert client.stdout is not None
            counts.append([int(v) for v in client.stdout.readline().split()])
        elapsed = time.monotonic() - started
        rss = _rss_mb(server.pid)
        for client in clients:
            client.kill()
            client.wait()
    opened = sum(c[0] for c in counts)
    pinged = sum(c[1] for c in counts)
    print(
        f"| {share * args.procs} requested | {opened} opened | {pinged} alive (pinged) "
        f"| all pinged after {elapsed:.1f} s | server RSS {idle_rss:.0f} -> {rss:.0f} MB |"
    )
    row = at_least(
        "concurrent SSE connections one worker holds (alive: each got a keep-alive)",
        pinged,
        TARGET,
        "",
        f"{pinged:,} alive of {share * args.procs:,} opened in {elapsed:.0f} s, "
        f"server RSS {idle_rss:.0f} → {rss:.0f} MB",
    )
    write_rows(args.json, [row])


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--client":
        port, first, count, timeout = sys.argv[2:6]
        asyncio.run(_client(int(port), int(first), int(count), float(timeout)))
    else:
        parser = argparse.ArgumentParser(description=__doc__)
        parser.add_argument("--connections", type=int, default=5000)
        parser.add_argument("--procs", type=int, default=4)
        parser.add_argument("--ping", type=float, default=5.0)
        parser.add_argument("--timeout", type=float, default=120.0)
        json_option(parser)
        main(parser.parse_args())
