"""Model delta -> SSE client latency with many concurrent streams, on one uvicorn worker.

    python benchmarks/sse_latency.py [--threads 100] [--clients 10] [--deltas 100]
                                     [--interval-ms 100] [--procs 4] [--json PATH]

The runs are started one by one, then released together (``SSE_BENCH_GO_FILE``), so all of
them stream at once: starting a run costs the server tens of deltas' worth of CPU, and runs
streaming while the others are still being started would measure the start-up instead. Before
its table row it prints the server's CPU time (``/proc``) per run start and per delta, the
delta rate offered, and the load average, which together say whether one process can keep up.

``--threads`` runs stream at once, each watched by ``--clients`` SSE connections
(threads x clients streams in all), opened by ``--procs`` client processes so the load
client is not the bottleneck. Every delta carries the monotonic time the model produced it;
each client records, per delta, the time until its bytes were read from the socket.
Loopback only; every loop is bounded by the number of deltas. ``--json PATH`` writes the
summary rows against the targets (for 1,000 streams x 5 deltas/s): p50 ≤ 5 ms and p99
≤ 50 ms with every delta seen, and ≤ 50 µs of the server's CPU per delta while streaming.
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _report import TIMES, Row, figure, json_option, write_rows
from sse_common import STAMP, free_port, open_stream, percentile, post_json, serve

FINISH = b'"type":"run-finish"'
TARGET_P50_MS, TARGET_P99_MS = 5.0, 50.0
TARGET_CPU_PER_DELTA_US = 50.0


async def _watch(port: int, thread: str, latencies: list[int], ready: asyncio.Event) -> None:
    reader, writer = await open_stream(port, f"/v1/events/{thread}")
    ready.set()
    tail = b""
    try:
        while True:
            data = await reader.read(65536)
            now = time.monotonic_ns()
            if not data:
                return
            chunk = tail + data
            last = 0
            for match in STAMP.finditer(chunk):
                latencies.append(now - int(match.group(1)))
                last = match.end()
            if FINISH in chunk:
                return
            tail = chunk[max(last, len(chunk) - 200) :]
    finally:
        writer.close()


async def _client(port: int, threads: list[str]) -> None:
    latencies: list[int] = []
    readies = [asyncio.Event() for _ in threads]
    tasks = [
        asyncio.create_task(_watch(port, t, latencies, r))
        for t, r in zip(threads, readies, strict=True)
    ]
    await asyncio.gather(*(r.wait() for r in readies))
    print("ready", flush=True)
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=600)
    print(json.dumps(latencies), flush=True)


def _spawn(port: int, threads: list[str]) -> subprocess.Popen[str]:
    command = [sys.executable, __file__, "--client", str(port), *threads]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the process has used so far, from Linux's ``/proc``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(args: argparse.Namespace) -> None:
    streams = [f"thread-{t}" for t in range(args.threads) for _ in range(args.clients)]
    shares = [streams[i :: args.procs] for i in range(args.procs)]
    port = free_port()
    with (
        tempfile.TemporaryDirectory() as tmp,
        serve(
            Path(tmp) / "bench.db",
            port,
            SSE_BENCH_DELTAS=str(args.deltas),
            SSE_BENCH_INTERVAL_MS=str(args.interval_ms),
            SSE_BENCH_GO_FILE=str(Path(tmp) / "go"),
        ) as server,
    ):
        clients = [_spawn(port, share) for share in shares]
        for client in clients:
            assert client.stdout is not None
            assert client.stdout.readline().strip() == "ready"
        cpu_opened = cpu_seconds(server.pid)
        body = json.dumps({"message": "go"}).encode()
        with ThreadPoolExecutor(16) as pool:
            codes = list(
                pool.map(
                    lambda t: post_json(port, f"/v1/chat/thread-{t}", body), range(args.threads)
                )
            )
        assert codes == [200] * args.threads, codes
        cpu_started, streaming = cpu_seconds(server.pid), time.monotonic()
        (Path(tmp) / "go").touch()
        latencies: list[int] = []
        for client in clients:
            out, _ = client.communicate(timeout=900)
            latencies.extend(json.loads(out.strip().splitlines()[-1]))
        cpu_streamed, streamed = cpu_seconds(server.pid) - cpu_started, time.monotonic() - streaming
        offered = args.threads * 1000 / args.interval_ms
        per_delta = cpu_streamed / (args.threads * args.deltas)
        print(
            f"server CPU: {(cpu_started - cpu_opened) * 1000 / args.threads:.1f} ms per run start; "
            f"{per_delta * 1000:.2f} ms per delta while streaming (each run's finish included), "
            f"{cpu_streamed:.1f} s CPU in {streamed:.1f} s; offered {offered:,.0f} deltas/s x "
            f"{per_delta * 1000:.2f} ms = {offered * per_delta:.2f} CPU-s per s (one process: at "
            f"most 1); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        )
    ms = [v / 1e6 for v in latencies]
    expected = args.threads * args.clients * args.deltas
    p50, p99 = percentile(ms, 50), percentile(ms, 99)
    print(
        f"| {args.threads * args.clients} streams ({args.threads} runs x {args.clients}) "
        f"| {args.deltas} deltas/run every {args.interval_ms:g} ms "
        f"| {len(ms)}/{expected} deltas | p50 {p50:.2f} ms "
        f"| p99 {p99:.2f} ms | max {max(ms):.1f} ms |"
    )
    latency = Row(
        f"model delta → SSE client at {args.threads * args.clients:,} streams ({args.threads:,} "
        f"runs {TIMES} {args.clients}, {args.deltas} deltas every {args.interval_ms:g} ms), one worker",
        f"p50 ≤ {TARGET_P50_MS:g} ms, p99 ≤ {TARGET_P99_MS:g} ms",
        f"p50 {figure(p50)} ms, p99 {figure(p99)} ms ({len(ms):,} of {expected:,} deltas seen)",
        p50 <= TARGET_P50_MS and p99 <= TARGET_P99_MS and len(ms) == expected,
    )
    cpu = Row(
        f"server CPU per delta at {args.threads * args.clients:,} streams, streaming (each run's "
        "finish included)",
        f"≤ {TARGET_CPU_PER_DELTA_US:g} µs",
        f"{figure(per_delta * 1e6)} µs ({figure(offered * per_delta)} CPU-seconds a second offered)",
        per_delta * 1e6 <= TARGET_CPU_PER_DELTA_US,
    )
    write_rows(args.json, [latency, cpu])


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--client":
        asyncio.run(_client(int(sys.argv[2]), sys.argv[3:]))
    else:
        parser = argparse.ArgumentParser(description=__doc__)
        parser.add_argument("--threads", type=int, default=100)
        parser.add_argument("--clients", type=int, default=10)
        parser.add_argument("--deltas", type=int, default=100)
        parser.add_argument("--interval-ms", type=float, default=100)
        parser.add_argument("--procs", type=int, default=4)
        json_option(parser)
        main(parser.parse_args())
