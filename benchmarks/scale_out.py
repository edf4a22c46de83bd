"""Scale-out: runs per second with 1, 2 and 3 ``--role worker`` replicas behind ``--role api``
replicas, on one PostgreSQL database and Redis, at a fixed concurrency.

    python benchmarks/scale_out.py --postgres URL [--redis URL] [--threads 50] [--seconds S]
        [--quick] [--json PATH] [--write-docs]

Every replica is the service race's runyard (``service_race_app.py``: ``create_app``, what
``runyard serve`` runs, with the race's agent: one tool, a zero-latency fake model) under
uvicorn, one process each, with ``RUNYARD_ROLE`` (what ``runyard serve --role`` sets) and the
default ``--worker-concurrency`` (16). Layouts, each on a fresh private database (on the
PostgreSQL server of ``--postgres``, default ``RUNYARD_BENCH_POSTGRES_URL``, dropped afterwards)
and a flushed Redis database (``--redis``, default ``RUNYARD_BENCH_REDIS_URL``, else a free one
of the local Redis): one ``all`` replica (the baseline: no queue), then one api replica with 1,
2 and 3 workers, then two api replicas with 2 workers. The race's client (one process) runs
``--threads`` threads over the api replicas, round robin by thread, each POST a run, stream its
events to the end, again (a new thread every 10 runs), for ``--seconds`` after a warm-up.

Per layout: runs/s, server CPU per run summed over every replica and split by process, and runs
per CPU-second (1,000 / the summed CPU ms per run: what one fully busy core would carry). The
machine's cores are shared by the client, every replica and PostgreSQL, so runs/s stops growing
once they are busy: the table says how loaded it was. ``--json PATH`` writes one summary row (no
target); ``--write-docs`` rewrites this benchmark's section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from _held_runs import RELEASE_DIR
from _race_clients import RunyardClient
from _race_measures import throughput
from _race_servers import Replicas, runyard_server
from _report import cpu_name, json_option, observed, write_rows, write_section
from _shared_services import POSTGRES_VARIABLE, Shared, redis_option, shared_services

START, END = "<!-- scale_out:start -->", "<!-- scale_out:end -->"


@dataclass(frozen=True)
class Layout:
    """``apis`` replicas the client talks to and ``workers`` that execute; with no workers,
    the one front replica is ``all`` (it runs what it accepts)."""

    apis: int
    workers: int

    @property
    def label(self) -> str:
        if not self.workers:
            return "1 all"
        return f"{self.apis} api + {self.workers} worker{'s' if self.workers > 1 else ''}"

    def roles(self) -> list[str]:
        front = "api" if self.workers else "all"
        return [front] * self.apis + ["worker"] * self.workers


LAYOUTS = (Layout(1, 0), Layout(1, 1), Layout(1, 2), Layout(1, 3), Layout(2, 2))


@dataclass(frozen=True)
class Measured:
    layout: Layout
    runs: int
    seconds: float
    cpu: list[float]  # CPU seconds of every replica over the row, in the order of ``roles()``
    load: float

    @property
    def per_second(self) -> float:
        return self.runs / self.seconds

    def cpu_ms_per_run(self) -> float:
        return sum(self.cpu) * 1000 / self.runs

    def per_cpu_second(self) -> float:
        return 1000 / self.cpu_ms_per_run()

    def by_process(self) -> str:
        each = [
            f"{role} {cpu * 1000 / self.runs:.1f}"
            for role, cpu in zip(self.layout.roles(), self.cpu, strict=True)
        ]
        return ", ".join(each) + " ms"


def _say(step: str) -> None:
    print(f"... {step}", file=sys.stderr, flush=True)


@contextmanager
def _replicas(layout: Layout, shared: Shared, scratch: Path) -> Iterator[Replicas]:
    releases = scratch / "held"
    releases.mkdir(exist_ok=True)
    os.environ[RELEASE_DIR] = str(releases)
    with ExitStack() as stack:
        servers = []
        for n, role in enumerate(layout.roles()):
            folder = scratch / f"{role}-{n}"
            folder.mkdir()
            start = runyard_server(folder, releases, shared=shared, role=role, name=role)
            servers.append(stack.enter_context(start))
        yield Replicas(layout.label, servers, servers[: layout.apis])


def measure(layout: Layout, args: argparse.Namespace) -> Measured:
    with (
        tempfile.TemporaryDirectory(prefix="scale-out-") as scratch,
        shared_services(args.postgres, args.redis, "runyard_scale") as shared,
    ):
        _say(f"{layout.label}: starting")
        with _replicas(layout, shared, Path(scratch)) as replicas:
            client = RunyardClient(*replicas.ports)
            _say(f"{layout.label}: warming up")
            asyncio.run(throughput(client, replicas, args.threads, args.warmup))
            _say(f"{layout.label}: {args.threads} threads for {args.seconds:g} s")
            before = replicas.cpu_each()
            found = asyncio.run(throughput(client, replicas, args.threads, args.seconds))
            used = [b - a for a, b in zip(before, replicas.cpu_each(), strict=True)]
    return Measured(layout, len(found.runs), found.seconds, used, found.load)


def table(results: list[Measured], threads: int) -> str:
    rows = [
        f"| replicas | runs/s ({threads} threads) | server CPU per run, all replicas "
        "| by process | runs per CPU-second | load average |",
        "|---|---:|---:|---|---:|---:|",
    ]
    for m in results:
        rows.append(
            f"| {m.layout.label} | {m.per_second:.1f} | {m.cpu_ms_per_run():.1f} ms "
            f"| {m.by_process()} | {m.per_cpu_second():.0f} | {m.load:.1f} |"
        )
    return "\n".join(rows)


def summary(results: list[Measured], threads: int, loads: list[float]) -> str:
    each = "; ".join(
        f"{m.layout.label} {m.per_second:.0f}/s ({m.cpu_ms_per_run():.1f} ms CPU per run)"
        for m in results
    )
    return (
        f"{each}; {os.cpu_count()} cores shared by the client, every replica and PostgreSQL "
        f"cap it; load average {min(loads):.1f}\N{EN DASH}{max(loads):.1f}"
    )


def section(results: list[Measured], args: argparse.Namespace, loads: list[float]) -> str:
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return "\n\n".join(
        [
            "## Scale-out: api and worker replicas on PostgreSQL + Redis",
            "`python benchmarks/scale_out.py --postgres $RUNYARD_BENCH_POSTGRES_URL "
            f"--seconds {args.seconds:g} --write-docs` regenerates this part (method: the script's "
            "docstring; docs/deploy.md says what to expect per core).",
            f"Measured {when} on {cpu_name()} ({os.cpu_count()} CPUs, shared with other jobs), "
            f"Python {platform.python_version()}; {args.threads} threads for {args.seconds:g} s "
            f"per layout; 1-minute load average {min(loads):.1f}\N{EN DASH}{max(loads):.1f}.",
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
    parser.add_argument("--quick", action="store_true", help="8 s per layout, 2 s warm-up")
    json_option(parser)
    parser.add_argument("--write-docs", action="store_true", help="rewrite docs' section")
    args = parser.parse_args(argv)
    args.seconds = args.seconds or (8.0 if args.quick else 20.0)
    args.warmup = 2.0 if args.quick else 5.0
    what = (
        f"scale-out on PostgreSQL + Redis: runs/s at {args.threads} threads, "
        "1 all / 1 api + 1, 2, 3 workers / 2 api + 2 workers"
    )
    if not args.postgres:
        print(f"not run: {POSTGRES_VARIABLE} unset and no --postgres", file=sys.stderr)
        write_rows(args.json, [observed(what, f"not run: {POSTGRES_VARIABLE} unset")])
        return
    loads = [os.getloadavg()[0]]
    results = []
    for layout in LAYOUTS:
        results.append(measure(layout, args))
        loads.append(os.getloadavg()[0])
    print(section(results, args, loads))
    write_rows(args.json, [observed(what, summary(results, args.threads, loads))])
    if args.write_docs:
        write_section(START, END, section(results, args, loads))


if __name__ == "__main__":
    main()
