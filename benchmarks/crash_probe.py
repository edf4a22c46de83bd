"""SIGKILL a streaming ``runyard serve`` again and again; count what a resuming client lost.

    python benchmarks/crash_probe.py [--kills 50] [--backend sqlite|postgresql] [--seed 7]
                                     [--postgres URL] [--json PATH]

The scenario of ``tests/http/test_crash_durability.py`` (``tests/http/crash_scenario.py``), at
scale: a client follows a thread and records every event it receives; each run streams slowly
(``/delay 20``) and its server is killed once the client has seen a random number (1-40) of its
events; a new server starts on the same database and the client resumes with
``Last-Event-ID``. Runs are spread over threads of ``--per-thread`` kills each, ending with a
run that completes. Printed per backend:

- lost: events the client received that the log does not hold under that id afterwards;
- reused: of those, ids the log holds with other content (the next events took the id);
- hidden finishes: killed runs whose ``run-finish`` has an id the client had already passed,
  so a resuming client never learns the run ended;
- gaps: places where the ids the client received do not go up by exactly one.

PostgreSQL runs in a private database on the server of ``--postgres`` (default
``RUNYARD_TEST_POSTGRES_URL``, else ``postgresql://postgres@127.0.0.1:5432/test``), dropped
afterwards. Loopback only. ``--json PATH`` writes the summary row: the target is nothing lost,
reused, hidden or skipped.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from _report import Row, json_option, write_rows

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "http"), str(ROOT / "tests")]

from crash_scenario import CrashReport, kill_and_restart  # noqa: E402
from http_harness import free_port  # noqa: E402

from postgres_databases import private_database  # noqa: E402

SERVER_ENV = {"RUNYARD_LEASE_SECONDS": "2"}


def gaps(report: CrashReport) -> int:
    ids = report.ids()
    return sum(1 for a, b in itertools.pairwise(ids) if b != a + 1)


def kills_that_lost(report: CrashReport) -> int:
    """Kills after which some event the client had received since the previous kill is lost."""
    lost, count, previous = set(report.lost()), 0, 0
    for kill in report.kills:
        count += any(previous < i <= kill.seen for i in lost)
        previous = kill.seen
    return count


async def probe(url: str, kills: int, per_thread: int, rng: random.Random) -> list[CrashReport]:
    reports = []
    for n, start in enumerate(range(0, kills, per_thread)):
        kill_after = [rng.randint(1, 40) for _ in range(min(per_thread, kills - start))]
        began = time.monotonic()
        report = await kill_and_restart(url, free_port(), f"probe-{n}", kill_after, **SERVER_ENV)
        print(
            f"thread probe-{n}: kills after {kill_after} events -> lost {len(report.lost())}, "
            f"reused {len(report.reused())}, hidden finishes {len(report.hidden_finishes())}, "
            f"gaps {gaps(report)} ({time.monotonic() - began:.0f} s)",
            flush=True,
        )
        reports.append(report)
    return reports


def _counts(reports: list[CrashReport]) -> dict[str, int]:
    """What went wrong over every kill of ``reports`` (each should be 0)."""
    return {
        "lost": sum(len(r.lost()) for r in reports),
        "reused": sum(len(r.reused()) for r in reports),
        "hidden finishes": sum(len(r.hidden_finishes()) for r in reports),
        "gaps": sum(gaps(r) for r in reports),
    }


def summary(backend: str, reports: list[CrashReport]) -> str:
    kills = sum(len(r.kills) for r in reports)
    received = sum(len(r.received) for r in reports)
    counts = " | ".join(str(n) for n in _counts(reports).values())
    return (
        f"| {backend} | {kills} | {sum(kills_that_lost(r) for r in reports)} | {received} "
        f"| {counts} |"
    )


def summary_row(backend: str, reports: list[CrashReport]) -> Row:
    kills = sum(len(r.kills) for r in reports)
    received = sum(len(r.received) for r in reports)
    counts = _counts(reports)
    name = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}[backend]
    return Row(
        f"events lost or ids reused over {kills} mid-stream SIGKILLs of `runyard serve`, {name}",
        "0",
        ", ".join(f"{n} {what}" for what, n in counts.items()) + f" of {received:,} events",
        not any(counts.values()),
    )


def main(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    if args.backend == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            reports = asyncio.run(
                probe(f"sqlite:///{Path(tmp) / 'probe.db'}", args.kills, args.per_thread, rng)
            )
    else:
        os.environ["RUNYARD_TEST_POSTGRES_URL"] = args.postgres
        databases = private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_probe")
        url = next(databases)
        try:
            reports = asyncio.run(probe(url, args.kills, args.per_thread, rng))
        finally:
            next(databases, None)  # drops the database
    print("| backend | kills | kills that lost events | events received | lost | reused ", end="")
    print("| hidden finishes | gaps |\n|---|---|---|---|---|---|---|---|")
    print(summary(args.backend, reports))
    write_rows(args.json, [summary_row(args.backend, reports)])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--per-thread", type=int, default=10)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--postgres",
        default=os.environ.get(
            "RUNYARD_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
        ),
        help="the PostgreSQL server to make the private database on",
    )
    json_option(parser)
    main(parser.parse_args())
