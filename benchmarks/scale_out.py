"""Scale-out: runs per second with 1 and 2 ``--role all`` replicas, and with 1, 2 and 3
``--role worker`` replicas behind ``--role api`` replicas, on one PostgreSQL database and Redis,
at a fixed concurrency.

    python benchmarks/scale_out.py --postgres URL [--redis URL] [--threads 50] [--seconds S]
        [--rounds N] [--quick] [--json PATH] [--write-docs]

Every replica is the service race's runyard (``service_race_app.py``: ``create_app``, what
``runyard serve`` runs, with the race's agent: one tool, a zero-latency fake model) under
uvicorn, one process each, with ``RUNYARD_ROLE`` (what ``runyard serve --role`` sets) and the
default ``--worker-concurrency`` (16). Layouts, each started afresh on a fresh private database
(on the PostgreSQL server of ``--postgres``, default ``RUNYARD_BENCH_POSTGRES_URL``, dropped
afterwards) and a flushed Redis database (``--redis``, default ``RUNYARD_BENCH_REDIS_URL``, else a
free one of the local Redis): one and two ``all`` replicas (no queue: each runs what it
accepts), then one api replica with 1, 2 and 3 workers, then two api replicas with 2 workers.
The race's client (one process) runs ``--threads`` threads over the front replicas, round robin
by thread, each POST a run, stream its events to the end, again (a new thread every 10 runs),
for ``--seconds`` after a warm-up. ``--rounds`` go through every layout, odd rounds backwards.

Per layout: runs/s; the replicas' CPU per run, summed and split by process; the PostgreSQL
backends' CPU per run on the benchmark's database (``_postgres_cpu``: read from ``/proc``, so a
server on this machine); runs per CPU-second (1,000 / the replicas' and PostgreSQL's ms per run:
what one fully busy core would carry); the client's CPU per run. The machine's cores are shared
by the client, every replica and PostgreSQL, so runs/s stops growing once they are busy: the
table says how loaded it was. ``--json PATH`` writes one summary row (no target);
``--write-docs`` rewrites this benchmark's section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from _held_runs import RELEASE_DIR
from _postgres_cpu import BackendsCpu
from _race_clients import RunyardClient
from _race_measures import throughput
from _race_servers import Replicas, replica_set
from _report import cpu_name, json_option, observed, write_rows, write_section
from _shared_services import POSTGRES_VARIABLE, Shared, redis_option, shared_services

START, END = "<!-- scale_out:start -->", "<!-- scale_out:end -->"


@dataclass(frozen=True)
class Layout:
    """``apis`` replicas the client talks to and ``workers`` that execute; with no workers,
    the front replicas are ``all`` (each runs what it accepts)."""

    apis: int
    workers: int

    @property
    def label(self) -> str:
        if not self.workers:
            return f"{self.apis} all"
        return f"{self.apis} api + {self.workers} worker{'s' if self.workers > 1 else ''}"

    def roles(self) -> list[str]:
        front = "api" if self.workers else "all"
        return [front] * self.apis + ["worker"] * self.workers


LAYOUTS = (
    Layout(1, 0),
    Layout(2, 0),
    Layout(1, 1),
    Layout(1, 2),
    Layout(1, 3),
    Layout(2, 2),
)


@dataclass(frozen=True)
class Measured:
    """One layout's row of one round; CPU in seconds over the row."""

    layout: Layout
    runs: int
    seconds: float
    cpu: list[float]  # every replica's, in the order of ``roles()``
    database: float | None  # PostgreSQL's backends' on the benchmark's database (None: remote)
    client: float
    load: float

    @property
    def per_second(self) -> float:
        return self.runs / self.seconds

    def ms(self, seconds: float | None) -> float:
        """``seconds`` of CPU as milliseconds per run."""
        return float("nan") if seconds is None else seconds * 1000 / self.runs


@dataclass(frozen=True)
class Summary:
    """A layout over the rounds: the medians of its rows."""

    layout: Layout
    rounds: list[Measured]

    def median(self, value: Callable[[Measured], float]) -> float:
        return statistics.median(value(m) for m in self.rounds)

    @property
    def per_second(self) -> float:
        return self.median(lambda m: m.per_second)

    @property
    def replicas_ms(self) -> float:
        return self.median(lambda m: m.ms(sum(m.cpu)))

    @property
    def database_ms(self) -> float:
        return self.median(lambda m: m.ms(m.database))

    @property
    def client_ms(self) -> float:
        return self.median(lambda m: m.ms(m.client))

    def per_core(self) -> float:
        """Runs one fully busy core carries: 1,000 / the replicas' and PostgreSQL's ms per run."""
        database = self.database_ms if self.database_ms == self.database_ms else 0.0
        return 1000 / (self.replicas_ms + database)

    def by_process(self) -> str:
        each = [f"{role} {self._process_ms(n):.1f}" for n, role in enumerate(self.layout.roles())]
        return ", ".join(each) + " ms"

    def _process_ms(self, index: int) -> float:
        return statistics.median(m.ms(m.cpu[index]) for m in self.rounds)


def _say(step: str) -> None:
    print(f"... {step}", file=sys.stderr, flush=True)


@contextmanager
def _replicas(layout: Layout, shared: Shared, scratch: Path) -> Iterator[Replicas]:
    releases = scratch / "held"
    releases.mkdir(exist_ok=True)
    os.environ[RELEASE_DIR] = str(releases)
    with replica_set(layout.label, layout.roles(), layout.apis, shared, scratch, releases) as r:
        yield r


def measure(layout: Layout, args: argparse.Namespace) -> Measured:
    """``layout`` started afresh on a fresh database and a flushed Redis, warmed up, measured."""
    with (
        tempfile.TemporaryDirectory(prefix="scale-out-") as scratch,
        shared_services(args.postgres, args.redis, "runyard_scale") as shared,
    ):
        _say(f"{layout.label}: starting")
        with _replicas(layout, shared, Path(scratch)) as replicas:
            return asyncio.run(_measure(layout, replicas, BackendsCpu(shared.database), args))


async def _measure(
    layout: Layout, replicas: Replicas, database: BackendsCpu, args: argparse.Namespace
) -> Measured:
    client = RunyardClient(*replicas.ports)
    _say(f"{layout.label}: warming up")
    await throughput(client, replicas, args.threads, args.warmup)
    _say(f"{layout.label}: {args.threads} threads for {args.seconds:g} s")
    replicas_before, backends = replicas.cpu_each(), await database.sample()
    client_before = time.process_time()
    found = await throughput(client, replicas, args.threads, args.seconds)
    client_cpu = time.process_time() - client_before
    used = [b - a for a, b in zip(replicas_before, replicas.cpu_each(), strict=True)]
    after = await database.sample()
    database_cpu = after.since(backends) if after is not None and backends is not None else None
    return Measured(
        layout, len(found.runs), found.seconds, used, database_cpu, client_cpu, found.load
    )


def measure_all(args: argparse.Namespace, loads: list[float]) -> list[Summary]:
    """Every layout in every round; odd rounds go through the layouts backwards, so no layout
    always runs first or last while the machine's load drifts."""
    found: dict[Layout, list[Measured]] = {layout: [] for layout in LAYOUTS}
    for index in range(args.rounds):
        order = LAYOUTS if index % 2 == 0 else tuple(reversed(LAYOUTS))
        for layout in order:
            found[layout].append(measure(layout, args))
            loads.append(os.getloadavg()[0])
    return [Summary(layout, rows) for layout, rows in found.items()]


def table(results: list[Summary], threads: int) -> str:
    rows = [
        f"| replicas | runs/s ({threads} threads) | replicas' CPU per run | by process "
        "| PostgreSQL CPU per run | runs per CPU-second (replicas + PostgreSQL) "
        "| client CPU per run | load average |",
        "|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for s in results:
        loads = "\N{EN DASH}".join(f"{x:.1f}" for x in sorted({m.load for m in s.rounds}))
        rows.append(
            f"| {s.layout.label} | {s.per_second:.1f} | {s.replicas_ms:.1f} ms "
            f"| {s.by_process()} | {s.database_ms:.1f} ms | {s.per_core():.0f} "
            f"| {s.client_ms:.1f} ms | {loads} |"
        )
    return "\n".join(rows)


def summary(results: list[Summary], loads: list[float]) -> str:
    each = "; ".join(
        f"{s.layout.label} {s.per_second:.0f}/s ({s.replicas_ms:.1f} + {s.database_ms:.1f} ms "
        "CPU per run)"
        for s in results
    )
    return (
        f"{each} (replicas + PostgreSQL); {os.cpu_count()} cores shared by the client, every "
        f"replica and PostgreSQL cap it; load average {min(loads):.1f}\N{EN DASH}{max(loads):.1f}"
    )


def section(results: list[Summary], args: argparse.Namespace, loads: list[float]) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return "\n\n".join(
        [
            "## Scale-out: api and worker replicas on PostgreSQL + Redis",
            "`python benchmarks/scale_out.py --postgres $RUNYARD_BENCH_POSTGRES_URL "
            f"--rounds {args.rounds} --seconds {args.seconds:g} --write-docs` regenerates this "
            "part (method: the script's docstring; docs/deploy.md says what to expect per core).",
            f"Measured {when} on {cpu_name()} ({os.cpu_count()} CPUs, shared with other jobs), "
            f"Python {platform.python_version()}; {args.threads} threads for {args.seconds:g} s "
            f"per layout, {args.rounds} round(s) (a figure is the rounds' median); 1-minute load "
            f"average {min(loads):.1f}\N{EN DASH}{max(loads):.1f}.",
            table(results, args.threads),
        ]
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--postgres",
        default=os.environ.get(POSTGRES_VARIABLE, ""),
        help=f"the PostgreSQL server to make private databases on (default ${POSTGRES_VARIABLE})",
    )
    parser.add_argument("--redis", default=redis_option(), help="Redis URL (default: a free db)")
    parser.add_argument("--threads", type=int, default=50, help="concurrent threads (50)")
    parser.add_argument("--seconds", type=float, help="seconds per layout (20; quick 8)")
    parser.add_argument("--rounds", type=int, help="rounds over every layout (2; quick 1)")
    parser.add_argument("--quick", action="store_true", help="one round, 8 s per layout")
    json_option(parser)
    parser.add_argument("--write-docs", action="store_true", help="rewrite docs' section")
    args = parser.parse_args(argv)
    args.seconds = args.seconds or (8.0 if args.quick else 20.0)
    args.warmup = 2.0 if args.quick else 5.0
    args.rounds = args.rounds or (1 if args.quick else 2)
    what = (
        f"scale-out on PostgreSQL + Redis: runs/s at {args.threads} threads, "
        "1 and 2 all / 1 api + 1, 2, 3 workers / 2 api + 2 workers"
    )
    if not args.postgres:
        print(f"not run: {POSTGRES_VARIABLE} unset and no --postgres", file=sys.stderr)
        write_rows(args.json, [observed(what, f"not run: {POSTGRES_VARIABLE} unset")])
        return
    loads = [os.getloadavg()[0]]
    results = measure_all(args, loads)
    print(section(results, args, loads))
    write_rows(args.json, [observed(what, summary(results, loads))])
    if args.write_docs:
        write_section(START, END, section(results, args, loads))


if __name__ == "__main__":
    main()
