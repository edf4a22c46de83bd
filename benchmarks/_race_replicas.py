"""The service race on PostgreSQL + Redis: two runyard replicas behind the race's client against
LangGraph Server, runs per second at 10 and 100 concurrent threads (``--postgres``).

Each round makes a private database on the ``--postgres`` server and takes a flushed Redis
database (``_shared_services``), starts two ``--role all`` replicas of the race's runyard app on
them (what two ``runyard serve`` processes behind a load balancer with thread affinity are: the
client sends every request about a thread to that thread's replica, threads round robin) and
LangGraph Server as in the race, warms both up, then measures each concurrency with the two
alternating in an order that rotates. Per row: runs per second; the replicas' CPU per run
(summed over both); the PostgreSQL backends' CPU per run on that database (``_postgres_cpu``);
the client's own CPU per run (it shares the cores); latencies as in the race.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from _held_runs import RELEASE_DIR
from _postgres_cpu import BackendsCpu
from _race_clients import Client, LangGraphClient, RunyardClient
from _race_measures import CpuMeter, Options, Throughput, throughput
from _race_servers import langgraph_server, replica_set
from _report import TIMES, Row, cpu_name
from _report import write_section as write_between
from _shared_services import shared_services

__all__ = [
    "CONCURRENCY",
    "ROWS",
    "ReplicaResults",
    "render_rows",
    "render_section",
    "run",
    "write_section",
]

START = "<!-- service_race_postgres:start -->"
END = "<!-- service_race_postgres:end -->"
REPLICAS, LANGGRAPH = "runyard, PostgreSQL + Redis, 2 replicas", "LangGraph Server"
SYSTEMS = (REPLICAS, LANGGRAPH)
CONCURRENCY = (10, 100)
TARGET = 3.0  # runyard's runs per second over LangGraph's
_TITLE = "service race on PostgreSQL + Redis, 2 runyard replicas, vs LangGraph Server"
ROWS: tuple[tuple[str, str], ...] = (
    *(
        (f"{_TITLE}: runs/s, {n} concurrent threads", f"≥ {TARGET:g}{TIMES} LangGraph's")
        for n in CONCURRENCY
    ),
    (f"{_TITLE}: CPU per run (10 threads)", "—"),
)


@dataclass(frozen=True)
class Measured:
    """One row: what the client saw, and the CPU of PostgreSQL and of the client meanwhile."""

    found: Throughput
    database_cpu: float | None  # seconds; None: not runyard's row, or a remote PostgreSQL
    client_cpu: float

    def per_run_ms(self, seconds: float | None) -> float:
        return float("nan") if seconds is None else seconds * 1000 / len(self.found.runs)


Round = dict[tuple[str, int], Measured]


@dataclass(frozen=True)
class ReplicaResults:
    """Every round of one invocation; a figure is the rounds' median."""

    rounds: list[Round]
    options: Options
    loads: list[float]
    when: str

    def median(self, value: Callable[[Measured], float], name: str, threads: int) -> float:
        return statistics.median(value(found[(name, threads)]) for found in self.rounds)

    def rate(self, name: str, threads: int) -> float:
        return self.median(lambda m: m.found.per_second, name, threads)

    def latency_ms(self, attribute: str, p: float, name: str, threads: int) -> float:
        return self.median(lambda m: m.found.latency_ms(attribute, p), name, threads)

    def load_range(self) -> str:
        loads = [*self.loads, *(m.found.load for found in self.rounds for m in found.values())]
        return f"{min(loads):.1f}\N{EN DASH}{max(loads):.1f}"


def _say(step: str) -> None:
    print(f"... {step}", file=sys.stderr, flush=True)


def run(options: Options, postgres: str, redis: str) -> ReplicaResults:
    """``options.rounds`` rounds, each on fresh servers, a fresh database and a flushed Redis."""
    rounds, loads = [], [os.getloadavg()[0]]
    for index in range(options.rounds):
        with _servers(options.venv, postgres, redis) as (clients, database):
            rounds.append(asyncio.run(_round(index, clients, database, options)))
        loads.append(os.getloadavg()[0])
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return ReplicaResults(rounds, options, loads, when)


Clients = dict[str, tuple[Client, CpuMeter]]


@contextmanager
def _servers(venv: Path, postgres: str, redis: str) -> Iterator[tuple[Clients, BackendsCpu]]:
    with (
        tempfile.TemporaryDirectory(prefix="service-race-pg-") as scratch,
        shared_services(postgres, redis, "runyard_race") as shared,
    ):
        root = Path(scratch)
        releases, home = root / "held", root / "langgraph"
        releases.mkdir()
        home.mkdir()
        os.environ[RELEASE_DIR] = str(releases)
        _say("starting two runyard replicas on PostgreSQL + Redis, and LangGraph Server")
        with (
            replica_set(REPLICAS, ["all", "all"], 2, shared, root, releases) as replicas,
            langgraph_server(venv, home, releases, max(CONCURRENCY)) as langgraph,
        ):
            yield (
                {
                    REPLICAS: (RunyardClient(*replicas.ports), replicas),
                    LANGGRAPH: (LangGraphClient(langgraph.port), langgraph),
                },
                BackendsCpu(shared.database),
            )


async def _round(index: int, clients: Clients, database: BackendsCpu, options: Options) -> Round:
    for name in _order(index):
        _say(f"round {index + 1}: warming up {name}")
        await throughput(*clients[name], 10, options.warmup)
    found: Round = {}
    for step, threads in enumerate(CONCURRENCY):
        for name in _order(index + step):
            _say(f"round {index + 1}: {name}, {threads} concurrent threads")
            before = await database.sample() if name == REPLICAS else None
            client_before = time.process_time()
            measured = await throughput(*clients[name], threads, options.seconds)
            client_cpu = time.process_time() - client_before
            after = await database.sample() if before is not None else None
            used = after.since(before) if after is not None and before is not None else None
            found[(name, threads)] = Measured(measured, used, client_cpu)
    return found


def _order(shift: int) -> list[str]:
    names = list(SYSTEMS)
    shift %= len(names)
    return names[shift:] + names[:shift]


def render_rows(results: ReplicaResults) -> list[Row]:
    load = f"load average {results.load_range()}, {len(results.rounds)} round(s)"
    rows = []
    for (what, target), threads in zip(ROWS, CONCURRENCY, strict=False):
        ours, theirs = results.rate(REPLICAS, threads), results.rate(LANGGRAPH, threads)
        ratio = ours / theirs
        measured = f"{ours:.1f}/s vs {theirs:.1f}/s: {ratio:.1f}{TIMES} ({load})"
        rows.append(Row(what, target, measured, ratio >= TARGET))
    rows.append(Row(*ROWS[-1], _cpu_summary(results, 10), None))
    return rows


def _cpu(results: ReplicaResults, name: str, threads: int) -> tuple[float, float, float]:
    """Server, PostgreSQL and client CPU ms per run, medians of the rounds."""
    return (
        results.median(lambda m: m.per_run_ms(m.found.server_cpu), name, threads),
        results.median(lambda m: m.per_run_ms(m.database_cpu), name, threads),
        results.median(lambda m: m.per_run_ms(m.client_cpu), name, threads),
    )


def _cpu_summary(results: ReplicaResults, threads: int) -> str:
    replicas, database, client = _cpu(results, REPLICAS, threads)
    langgraph, _, langgraph_client = _cpu(results, LANGGRAPH, threads)
    return (
        f"runyard's replicas {replicas:.1f} ms + PostgreSQL {database:.1f} ms; "
        f"LangGraph Server {langgraph:.1f} ms; the client {client:.1f} / {langgraph_client:.1f} ms"
    )


def render_section(results: ReplicaResults, versions: str) -> str:
    o = results.options
    about = (
        f"Measured {results.when} on {cpu_name()} ({os.cpu_count()} CPUs, shared with other "
        f"jobs and with the client and PostgreSQL); {versions}. {len(results.rounds)} round(s) "
        f"of {o.seconds:g} s per row; 1-minute load average {results.load_range()} while it ran. "
        "With several rounds a figure is the rounds' median."
    )
    heading = "### On PostgreSQL + Redis: two runyard replicas against LangGraph Server"
    return "\n\n".join([heading, _METHOD, about, _table(results), _targets(results)])


def _table(results: ReplicaResults) -> str:
    lines = [
        "| threads | server | runs/s | server CPU per run | PostgreSQL CPU per run "
        "| client CPU per run | POST → first event p50 / p99 | → run's end p50 |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for threads in CONCURRENCY:
        for name in SYSTEMS:
            server, database, client = _cpu(results, name, threads)
            p50, p99, end = (
                results.latency_ms(what, p, name, threads)
                for what, p in (("first_event", 50), ("first_event", 99), ("end", 50))
            )
            shown = "—" if name == LANGGRAPH else f"{database:.1f} ms"
            lines.append(
                f"| {threads} | {name} | {results.rate(name, threads):.1f} | {server:.1f} ms "
                f"| {shown} | {client:.1f} ms | {p50:.0f} / {p99:.0f} ms | {end:.0f} ms |"
            )
    return "\n".join(lines)


def _targets(results: ReplicaResults) -> str:
    lines = ["| what | target | measured | met |", "|---|---|---|---|"]
    for row in render_rows(results):
        met = "**no**" if row.met is False else row.verdict
        lines.append(f"| {row.what} | {row.target} | {row.measured} | {met} |")
    return "\n".join(lines)


def write_section(section: str) -> None:
    """Replace this mode's section of docs/benchmarks.md, leaving the others alone."""
    write_between(START, END, section)


_METHOD = """\
`python benchmarks/service_vs_langgraph.py --langgraph-venv /tmp/lg-venv --postgres
$RUNYARD_BENCH_POSTGRES_URL --write-docs` regenerates this part (`--quick`: one short round;
`--redis URL` picks the Redis database, default `RUNYARD_BENCH_REDIS_URL` or the local Redis's
highest empty one). runyard runs as two `--role all` replicas of the race's app on one private
PostgreSQL database and one Redis (announcements of new events between replicas), the way a
deployment with more than one process runs; the client sends every request about a thread to
that thread's replica, threads round robin (a load balancer with thread affinity). LangGraph
Server, the agent, the client and the throughput measure are the race's (above). Server CPU
per run is the replicas' summed; PostgreSQL's is its backends' on the race's database (read from
`/proc`: the server runs on this machine), which LangGraph's in-memory runtime does not have.
The client's CPU per run is shown because it runs on the same two cores."""
