"""How long the server's event loop is held while it serves: the race's load plus long replays.

    python benchmarks/loop_stalls.py [--seconds 8] [--threads 10] [--events 10000] [--json PATH]

One uvicorn worker (asyncio's loop) serves the service race's app (``loop_stalls_app``: the
race's agent, every callback of the loop timed) on a SQLite file that already holds a thread of
``--events`` events. For ``--seconds`` the race's client runs
``--threads`` concurrent threads of runs (``_race_measures.throughput``) while another client
replays the long thread over SSE from its start, again and again. Every statement of the store
runs on the loop's thread, so a long one (a replay's read, a commit, a WAL checkpoint) holds
every stream of the process, as does any other callback that runs long (encoding a slice of a
replay, say): a callback's duration is such a stall. Reported: the p50 / p99 / max of the
callbacks' durations over the window, how many ran, and the replays and runs done. The target: p99 ≤ 5 ms and
max ≤ 20 ms (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _held_runs import RELEASE_DIR
from _race_clients import RunyardClient
from _race_measures import throughput
from _race_servers import Server
from _report import Row, json_option, write_rows
from sse_common import free_port, percentile, stop, wait_ready
from sse_replay import fill, replay_once

HERE = Path(__file__).resolve().parent
P99_LIMIT_MS, MAX_LIMIT_MS = 5.0, 20.0


def _start(db: Path, stalls: Path, releases: Path, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "RUNYARD_DATABASE_URL": f"sqlite:///{db}",
        "RUNYARD_REDIS_URL": "",
        "RUNYARD_BENCH_STALLS": str(stalls),
        RELEASE_DIR: str(releases),
        "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH")) if p),
    }
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "loop_stalls_app:create",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log",
        "--loop", "asyncio",
    ]  # fmt: skip
    return subprocess.Popen(command, env=env)


async def _load(
    server: Server, threads: int, seconds: float, events: int
) -> tuple[float, float, int, int]:
    """When both clients ran (``time.monotonic()``, after a warm-up of each), and the runs and
    replays they did meanwhile."""
    client = RunyardClient(server.port)
    await throughput(client, server, threads, 1.0)
    await replay_once(server.port, events)
    started, replays = time.monotonic(), 0
    racing = asyncio.create_task(throughput(client, server, threads, seconds))
    while not racing.done():
        await replay_once(server.port, events)
        replays += 1
    runs = len((await racing).runs)
    return started, time.monotonic(), runs, replays


def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="loop-stalls-") as scratch:
        root = Path(scratch)
        db, stalls, releases = root / "runyard.db", root / "stalls.json", root / "held"
        releases.mkdir()
        os.environ[RELEASE_DIR] = str(releases)
        asyncio.run(fill(db, args.events))
        port = free_port()
        process = _start(db, stalls, releases, port)
        try:
            wait_ready(port)
            started, ended, runs, replays = asyncio.run(
                _load(Server("runyard", port, process), args.threads, args.seconds, args.events)
            )
        finally:
            stop(process)
        samples = json.loads(stalls.read_text())
    held = [
        s * 1000
        for e, s in zip(samples["ended"], samples["held"], strict=True)
        if started <= e <= ended
    ]
    p50, p99, worst = percentile(held, 50), percentile(held, 99), max(held)
    measured = (
        f"p99 {p99:.2f} ms, max {worst:.1f} ms (p50 {p50:.3f}; {len(held):,} callbacks, "
        f"{runs} runs and {replays} replays of {args.events:,} events in {ended - started:.0f} s)"
    )
    print(measured)
    longest = sorted(x for x in samples["longest"] if started <= x[1] <= ended)
    for seconds, _, what in longest[::-1][:8]:
        print(f"  {seconds * 1000:6.1f} ms  {what}")
    collections = [c for c in samples["collections"] if started <= c[2] <= ended]
    for generation in (0, 1, 2):
        times = [c[1] * 1000 for c in collections if c[0] == generation]
        if times:
            print(f"  generation {generation}: {len(times)} collections, max {max(times):.1f} ms")
    row = Row(
        f"event-loop stalls under the race ({args.threads} threads) with {args.events:,}-event "
        "replays, SQLite",
        f"p99 ≤ {P99_LIMIT_MS:g} ms, max ≤ {MAX_LIMIT_MS:g} ms",
        measured,
        p99 <= P99_LIMIT_MS and worst <= MAX_LIMIT_MS,
    )
    write_rows(args.json, [row])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--threads", type=int, default=10)
    parser.add_argument("--events", type=int, default=10_000)
    json_option(parser)
    main(parser.parse_args())
