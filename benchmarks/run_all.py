"""Every benchmark in one bounded run, and the summary table of docs/benchmarks.md rewritten from it.

    python benchmarks/run_all.py [--full] [--only NAME ...] [--no-write] [--langgraph-venv PATH]

Each benchmark of ``BENCHMARKS`` runs in a process of its own (a new session, so a timeout ends
the servers and clients it started too) with ``--json PATH``, and its rows are what it writes
there (``_report.Row``: what, target, measured, met — decided by the benchmark from its
numbers). By default each runs at its quick size, bounded so the whole run takes about a quarter
of an hour on 2 cores; ``--full`` runs the sizes the docs' detailed sections were measured at
(and allows ten times the time). A benchmark that is missing, needs a server nobody configured,
fails or outruns its time gives one row "not run: why" in place of its rows, and the run goes on.

Then the part of docs/benchmarks.md between the summary markers becomes the table of every row,
with the command that produced it, under a line saying when, how long it took and how loaded the
machine was. Benchmarks that own a section of that file (runtime overhead, observability,
observational memory) rewrite it themselves as they run. Each benchmark's output is kept in a
log directory named at the end.

Servers, from the environment (a row that needs one that is unset says so instead of running):

- ``RUNYARD_BENCH_POSTGRES_URL``: a PostgreSQL server, as a URL to a database the benchmarks may
  connect to and create (and drop) private databases from; the PostgreSQL event-log and crash
  rows, the service race on PostgreSQL + Redis and the scale-out figure (with the local Redis, or
  ``RUNYARD_BENCH_REDIS_URL``).
- ``RUNYARD_BENCH_PGVECTOR_URL``: the same for a server with pgvector; the pgvector recall row
  (about 2 minutes: it builds its HNSW index after loading the 100,000 vectors).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from _report import TIMES, Row, load_rows, write_section

HERE = Path(__file__).resolve().parent
START, END = "<!-- summary:start -->", "<!-- summary:end -->"
FULL_TIME = 10
"""How many times its quick timeout a benchmark may take at its full size."""


@dataclass(frozen=True)
class Benchmark:
    """One process of the run: a script, its arguments, and how long it may take.

    ``args`` may name servers as ``{postgres}``, ``{pgvector}`` or ``{langgraph_venv}``
    (``SERVERS``); ``quick`` are the arguments that bound its size, dropped by ``--full``.
    ``title`` and ``target`` make the row left when it gives none.
    """

    name: str
    script: str
    title: str
    target: str
    timeout: float
    args: tuple[str, ...] = ()
    quick: tuple[str, ...] = ()

    def arguments(self, full: bool) -> tuple[str, ...]:
        return self.args if full else (*self.args, *self.quick)


@dataclass(frozen=True)
class Server:
    """A placeholder of ``Benchmark.args``: where its value comes from, and how commands show it."""

    variable: str

    def value(self, given: Mapping[str, str]) -> str:
        return given.get(self.variable) or os.environ.get(self.variable, "")

    def shown(self, given: Mapping[str, str]) -> str:
        return given.get(self.variable) or f"${self.variable}"


SERVERS = {
    "postgres": Server("RUNYARD_BENCH_POSTGRES_URL"),
    "pgvector": Server("RUNYARD_BENCH_PGVECTOR_URL"),
    "langgraph_venv": Server("RUNYARD_BENCH_LANGGRAPH_VENV"),
}

BENCHMARKS = (
    Benchmark(
        "runtime-overhead",
        "runtime_overhead.py",
        "runtime overhead and parked memory vs pydantic-ai and LangGraph",
        f"≥ 10{TIMES} / ≥ 5{TIMES} less time; ≤ 20 KiB",
        timeout=480,
        quick=("--iterations", "200", "--warmup", "20", "--parked-repeats", "1"),
    ),
    Benchmark(
        "cold-start",
        "cold_start.py",
        "cold start, `runyard --help`, `runyard serve` → `/readyz` 200, whole processes",
        "≤ ½ of the faster peer; ≤ 0.3 s; ≤ 1.5 s",
        timeout=420,
        quick=("--rounds", "3"),
    ),
    Benchmark(
        "events-sqlite",
        "storage_events.py",
        "event-log appends, SQLite (batch 500)",
        "≥ 50,000 events/s",
        timeout=180,
        args=("--backend", "sqlite"),
        quick=("--events", "100000"),
    ),
    Benchmark(
        "events-postgresql",
        "storage_events.py",
        "event-log appends, PostgreSQL (batch 500)",
        "≥ 30,000 events/s",
        timeout=180,
        args=("--backend", "postgresql", "--postgres", "{postgres}"),
        quick=("--events", "100000"),
    ),
    Benchmark(
        "recall-sqlite",
        "storage_recall.py",
        "semantic recall top-5 over 100,000 vectors, SQLite, resource scope, p95",
        "≤ 20 ms",
        timeout=600,
        args=("--backend", "sqlite"),
    ),
    Benchmark(
        "recall-pgvector",
        "storage_recall.py",
        "semantic recall top-5 over 100,000 vectors, PostgreSQL (pgvector), resource scope, p95",
        "≤ 20 ms",
        timeout=1800,
        args=("--backend", "pgvector", "--pgvector", "{pgvector}"),
    ),
    Benchmark(
        "sse-latency",
        "sse_latency.py",
        "model delta → SSE client at 1,000 streams, one worker",
        "p50 ≤ 1 ms, p99 ≤ 10 ms",
        timeout=300,
        args=("--threads", "1000", "--clients", "1", "--interval-ms", "200"),
        quick=("--deltas", "20"),
    ),
    Benchmark(
        "crash-sqlite",
        "crash_probe.py",
        "events lost or ids reused over mid-stream SIGKILLs, SQLite",
        "0",
        timeout=300,
        args=("--backend", "sqlite"),
        quick=("--kills", "3", "--per-thread", "3"),
    ),
    Benchmark(
        "crash-postgresql",
        "crash_probe.py",
        "events lost or ids reused over mid-stream SIGKILLs, PostgreSQL",
        "0",
        timeout=300,
        args=("--backend", "postgresql", "--postgres", "{postgres}"),
        quick=("--kills", "3", "--per-thread", "3"),
    ),
    Benchmark(
        "sse-replay",
        "sse_replay.py",
        "replay of a 10,000-event backlog over SSE",
        "≤ 100 ms",
        timeout=180,
        quick=("--repeat", "3"),
    ),
    Benchmark(
        "loop-stalls",
        "loop_stalls.py",
        "event-loop stalls under the race (10 threads) with 10,000-event replays, SQLite",
        "p99 ≤ 5 ms, max ≤ 20 ms",
        timeout=180,
        quick=("--seconds", "8"),
    ),
    Benchmark(
        "durable-steps",
        "durable_steps.py",
        "durable steps: the journal writes of one tool-calling step, SQLite",
        "—",
        timeout=120,
        quick=("--steps", "100"),
    ),
    Benchmark(
        "step-durability",
        "step_durability.py",
        "per-step durability cost, one-tool run under `RunManager`, SQLite",
        "≤ 20% of the run's service-side time",
        timeout=300,
        quick=("--iterations", "60", "--warmup", "5"),
    ),
    Benchmark(
        "sse-connections",
        "sse_connections.py",
        "concurrent SSE connections one worker holds",
        "≥ 5,000",
        timeout=300,
    ),
    Benchmark(
        "grpc-stream",
        "grpc_stream.py",
        "gRPC `Stream` events per second, one process",
        "—",
        timeout=180,
        quick=("--events", "5000"),
    ),
    Benchmark(
        "thread-history",
        "thread_history.py",
        "`/messages` first page on a thread with 1,000 runs",
        "—",
        timeout=300,
        quick=("--repeat", "3"),
    ),
    Benchmark(
        "langgraph-state",
        "langgraph_state.py",
        "LangGraph `get_state` on a thread with 1,000 runs",
        "—",
        timeout=300,
        quick=("--repeat", "3"),
    ),
    Benchmark(
        "redaction",
        "redaction.py",
        "secret redaction per text delta",
        "—",
        timeout=120,
        quick=("--deltas", "5000", "--repeats", "5"),
    ),
    Benchmark(
        "held-deltas",
        "held_deltas.py",
        "the hold-back per demo-model delta (`HeldDeltas.take`)",
        "—",
        timeout=120,
        quick=("--deltas", "5000", "--repeats", "5"),
    ),
    Benchmark(
        "graph-overhead",
        "graph_overhead.py",
        "runyard around a LangGraph graph: CPU per run over the graph's own",
        "≤ 2 ms",
        timeout=180,
        quick=("--runs", "100", "--repeats", "3"),
    ),
    Benchmark(
        "sse-path-cpu",
        "sse_path_cpu.py",
        "CPU per text delta of the event log and SSE code, in one process",
        "—",
        timeout=180,
        quick=("--deltas", "5000"),
    ),
    Benchmark(
        "delta-floor",
        "delta_floor.py",
        "CPU per delta below runyard: asyncio alone + pydantic-ai's stream alone",
        "—",
        timeout=180,
    ),
    Benchmark(
        "observability",
        "observability_overhead.py",
        "telemetry per streamed one-tool run",
        "—",
        timeout=300,
        # Its section's prose reads figures of the full-size run; the quick one gives the row.
        args=("--no-write",),
        quick=("--iterations", "300", "--warmup", "30"),
    ),
    Benchmark(
        "memory-observational",
        "memory_observational.py",
        "observational memory: whole transcript vs the model's context",
        "—",
        timeout=120,
        args=("--write-docs",),
    ),
    Benchmark(
        "memory-serve",
        "memory_observational_serve.py",
        "raw history at a run's start, tool-heavy session under `runyard serve`",
        "≤ 30,000 tokens, no run waiting",
        timeout=600,  # 2 min at load average 4, over 5 at 13
        args=("--turns", "200", "--steps", "5", "--latency", "0:0", "--reflector-tokens", "10000"),
    ),
    Benchmark(
        "service-race",
        "service_vs_langgraph.py",
        "runyard's HTTP + SSE service vs LangGraph Server",
        f"≥ 5{TIMES} the throughput, ≤ ⅕ of the memory per run",
        timeout=900,
        args=("--langgraph-venv", "{langgraph_venv}"),
        quick=("--quick",),
    ),
    Benchmark(
        "service-race-postgres",
        "service_vs_langgraph.py",
        "runyard's service as 2 replicas on PostgreSQL + Redis vs LangGraph Server",
        f"≥ 3{TIMES} the throughput at 10 and 100 threads",
        timeout=300,
        args=("--langgraph-venv", "{langgraph_venv}", "--postgres", "{postgres}"),
        quick=("--quick",),
    ),
    Benchmark(
        "scale-out",
        "scale_out.py",
        "scale-out on PostgreSQL + Redis: runs/s, api and worker replicas",
        "—",
        timeout=600,
        args=("--postgres", "{postgres}"),
        quick=("--quick",),
    ),
)


@dataclass(frozen=True)
class Outcome:
    """What one benchmark gave: its rows (or the row saying why it did not run), and its time."""

    benchmark: Benchmark
    rows: list[Row]
    command: str
    seconds: float


def _not_run(benchmark: Benchmark, why: str) -> list[Row]:
    return [Row(benchmark.title, benchmark.target, f"not run: {why}", None)]


def _fill(args: Sequence[str], values: Mapping[str, str]) -> list[str]:
    return [arg.format_map(values) for arg in args]


def _last_line(log: Path) -> str:
    lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no output"


def _end_session(process: subprocess.Popen[bytes]) -> None:
    """Kill what the benchmark started and left behind (its session), then reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def run_one(benchmark: Benchmark, full: bool, given: Mapping[str, str], logs: Path) -> Outcome:
    """Run ``benchmark`` to its rows; any failure becomes its "not run" row."""
    args = benchmark.arguments(full)
    shown = {name: server.shown(given) for name, server in SERVERS.items()}
    words = ["python", f"benchmarks/{benchmark.script}", *_fill(args, shown)]
    # A server shown as $VARIABLE stays unquoted, so the command can be pasted into a shell.
    command = " ".join(w if w.startswith("$") else shlex.quote(w) for w in words)
    values = {name: server.value(given) for name, server in SERVERS.items()}
    unset = [
        s.variable for n, s in SERVERS.items() if f"{{{n}}}" in " ".join(args) and not values[n]
    ]
    script = HERE / benchmark.script
    if not script.exists():
        return Outcome(benchmark, _not_run(benchmark, "script missing"), command, 0.0)
    if unset:
        return Outcome(benchmark, _not_run(benchmark, f"{', '.join(unset)} unset"), command, 0.0)
    timeout = benchmark.timeout * (FULL_TIME if full else 1)
    rows_file, log = logs / f"{benchmark.name}.json", logs / f"{benchmark.name}.log"
    started = time.monotonic()
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, str(script), *_fill(args, values), "--json", str(rows_file)],
            cwd=HERE.parent,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            status = None
        finally:
            _end_session(process)
    seconds = time.monotonic() - started
    if status is None:
        rows = _not_run(benchmark, f"timed out after {timeout:.0f} s")
    elif status != 0:
        rows = _not_run(benchmark, f"exit status {status}: {_last_line(log)}")
    elif not rows_file.exists() or not (found := load_rows(rows_file)):
        rows = _not_run(benchmark, "it wrote no rows")
    else:
        rows = found
    return Outcome(benchmark, rows, command, seconds)


def _load() -> float:
    return os.getloadavg()[0]


def machine() -> str:
    """The processors, and how fast this one runs plain Python: two runs' absolute times
    compare only as their machines do (the load average says how busy it was besides)."""
    models = [
        line.split(":", 1)[1].strip()
        for line in _cpuinfo().splitlines()
        if line.startswith("model name")
    ]
    model = models[0] if models else platform.processor() or "an unknown processor"
    loop = min(timeit.repeat("sum(range(1_000_000))", number=10, repeat=5)) / 10
    return (
        f"{os.cpu_count()} CPUs ({model}; a plain-Python reference, `sum(range(10**6))`, "
        f"{loop * 1000:.1f} ms)"
    )


def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text()
    except OSError:  # not Linux
        return ""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(
    outcomes: Sequence[Outcome],
    full: bool,
    began: datetime,
    minutes: float,
    loads: list[float],
    host: str,
) -> str:
    """The summary: when and how it was measured, then the table."""
    mode = "`--full` sizes" if full else "quick sizes"
    longest = sorted(outcomes, key=lambda o: o.seconds, reverse=True)[:3]
    took = ", ".join(f"{o.benchmark.name} {o.seconds / 60:.1f}" for o in longest)
    lines = [
        f"Measured {began:%Y-%m-%d %H:%M} UTC by `make bench` (`python benchmarks/run_all.py`, "
        f"{mode}) in {minutes:.1f} min (the longest: {took} min), Python "
        f"{platform.python_version()} on {host}. **The machine is shared with other jobs**: "
        "the 1-minute load "
        f"average was {min(loads):.1f} to {max(loads):.1f} while it ran (sampled as each benchmark "
        'began), so absolute times are pessimistic; compare rows of one run only. "met" is '
        'decided by each benchmark from its measurement; "—": no target.',
        "",
        "| what | target | measured | met | command |",
        "|---|---|---|---|---|",
    ]
    for outcome in outcomes:
        for row in outcome.rows:
            cells = [row.what, row.target, row.measured, row.verdict, f"`{outcome.command}`"]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="the full sizes, not the quick ones")
    parser.add_argument(
        "--only",
        nargs="+",
        choices=[b.name for b in BENCHMARKS],
        metavar="NAME",
        help="run these only, and leave the table as it is: "
        + ", ".join(b.name for b in BENCHMARKS),
    )
    parser.add_argument("--no-write", action="store_true", help="print only; leave the docs")
    parser.add_argument(
        "--langgraph-venv",
        default=os.environ.get("RUNYARD_BENCH_LANGGRAPH_VENV", "/tmp/lg-venv"),
        help="the venv LangGraph Server runs from, for the service race (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    chosen = [b for b in BENCHMARKS if args.only is None or b.name in args.only]
    given = {"RUNYARD_BENCH_LANGGRAPH_VENV": args.langgraph_venv}
    logs = Path(tempfile.mkdtemp(prefix="runyard-bench-"))
    host = machine()
    began, started, loads = datetime.now(UTC), time.monotonic(), []
    outcomes = []
    for n, benchmark in enumerate(chosen, 1):
        loads.append(_load())
        print(f"[{n}/{len(chosen)}] {benchmark.name} (load {loads[-1]:.1f}) ...", flush=True)
        outcome = run_one(benchmark, args.full, given, logs)
        for row in outcome.rows:
            print(f"    {row.what}: {row.measured} [{row.verdict}]", flush=True)
        print(f"    {outcome.seconds:.0f} s", flush=True)
        outcomes.append(outcome)
    loads.append(_load())
    minutes = (time.monotonic() - started) / 60
    summary = render(outcomes, args.full, began, minutes, loads, host)
    print(f"\n{summary}\n\nlogs: {logs}")
    if args.only is None and not args.no_write:
        write_section(START, END, summary, heading="## Summary")
        print("written to docs/benchmarks.md")


if __name__ == "__main__":
    main()
