"""Service race: runyard's HTTP + SSE service against LangGraph Server, same machine, one run.

    python benchmarks/service_vs_langgraph.py [--quick] [--json PATH] [--write-docs]
        [--langgraph-venv /tmp/lg-venv] [--rounds N] [--seconds S] [--only memory]
        [--postgres URL [--redis URL]]

Four servers run as their own processes on loopback ports, started by this script: runyard's
HTTP app (``service_race_app.py``) under uvicorn on its default embedded store, a SQLite file
(the targets are held to this one), the same app on its in-memory store ``memory://`` (the like
of LangGraph's), the same app on SQLite serving LangGraph Server's own graph as a ``graph:``
agent (the race on the same graph), and LangGraph Server as ``langgraph dev`` (its in-memory
runtime) serving ``langgraph_peer/graph.py``. All serve the same agent: one async tool ``add`` on
a zero-latency fake chat model that calls ``add(1, 2)`` and then streams "The sum is 3." as four
deltas. Every streamed run's text is checked.

LangGraph Server lives in its own virtual environment, never in the project's. Set it up once
(offline-capable from a PyPI mirror; about a minute):

    python3 -m venv /tmp/lg-venv
    /tmp/lg-venv/bin/pip install "langgraph-cli[inmem]" langgraph-sdk langchain

and pass ``--langgraph-venv /tmp/lg-venv`` (the default). Without it, the script prints (or
writes with ``--json``) rows saying it did not run, and exits 0.

Measured in rounds, every measure alternating between the servers in an order that rotates.
Each round starts the servers afresh, with ``tracemalloc`` on, for memory per active run
(``--held-runs`` runs held inside their first model call, each with its client streaming; the
Python heap each server traces, and the resident memory of its process tree, before and while
they are held), then afresh again, untraced, for ``--listeners`` SSE listeners on one
thread (a held run, every listener connected, then released: time until each has the run's end,
and the server's memory) and sustained runs per second with 1, 10 and 100 concurrent threads for
``--seconds`` each (a client per thread: POST a run, stream its events to the end, again; a new
thread every 10 runs), with the server's CPU per run and POST → first streamed event, → first
model output and → end latencies. Each start is followed by a warm-up.
``--quick`` is one short round (about two minutes); ``--json PATH`` writes the summary rows
``{"what", "target", "measured", "met"}``; ``--write-docs`` rewrites this benchmark's section of
docs/benchmarks.md. ``--only memory`` runs the held runs' part alone and prints its table and
row (``--json``: that row only; it writes no docs).

``--postgres URL`` races instead runyard as two replicas on PostgreSQL + Redis against LangGraph
Server, throughput at 10 and 100 threads only (``_race_replicas.py``; about a minute quick), with
a section and rows of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path

import _race_replicas
from _held_runs import RELEASE_DIR
from _race_clients import Client, LangGraphClient, RunyardClient
from _race_measures import Options, Round, fanout, held_memory, throughput
from _race_replicas import ROWS as REPLICA_ROWS
from _race_report import (
    GRAPH_APP,
    LANGGRAPH,
    ROWS,
    RUNYARD_GRAPH,
    RUNYARD_MEMORY,
    SYSTEMS,
    Results,
    memory_row,
    render_memory,
    render_rows,
    render_section,
    versions,
    write_section,
)
from _race_servers import Server, langgraph_server, runyard_server
from _report import json_option
from _shared_services import redis_option

Clients = dict[str, tuple[Client, Server]]


def _say(step: str) -> None:
    print(f"... {step}", file=sys.stderr, flush=True)


async def _warm_up(index: int, clients: Clients, options: Options) -> None:
    for name in _order(clients, index):
        _say(f"round {index + 1}: warming up {name}")
        await throughput(*clients[name], 10, options.warmup)


async def _measure_memory(index: int, clients: Clients, options: Options, found: Round) -> None:
    await _warm_up(index, clients, options)
    for name in _order(clients, index):
        _say(f"round {index + 1}: {name}, {options.held_runs} runs held")
        # Measured the second time: the first grows what a server keeps for good once it has
        # held that many runs (connection pools, worker threads, allocator arenas), not per run.
        await held_memory(*clients[name], options.held_runs, _releases())
        found.memory[name] = await held_memory(*clients[name], options.held_runs, _releases())


async def _measure_streams(index: int, clients: Clients, options: Options, found: Round) -> None:
    await _warm_up(index, clients, options)
    for name in _order(clients, index):
        _say(f"round {index + 1}: {name}, {options.listeners} listeners on one thread")
        found.fanout[name] = await fanout(*clients[name], options.listeners, _releases())
    for step, concurrency in enumerate(options.concurrency):
        for name in _order(clients, index + step):
            _say(f"round {index + 1}: {name}, {concurrency} concurrent threads")
            result = await throughput(*clients[name], concurrency, options.seconds)
            found.throughput[(name, concurrency)] = result


def _order(clients: Clients, shift: int) -> list[str]:
    """The servers' names, rotated by ``shift``: no server always goes first."""
    names = list(clients)
    shift %= len(names)
    return names[shift:] + names[:shift]


def _releases() -> Path:
    return Path(os.environ[RELEASE_DIR])


def run_rounds(options: Options) -> Results:
    """Each round: fresh servers, traced, for the memory of held runs (nothing before it has
    grown their heaps), then fresh ones again, untraced (tracing slows every allocation), for
    the listeners (first, for the same reason) and the throughput rows."""
    stages = [(_measure_memory, True)]
    if not options.memory_only:
        stages.append((_measure_streams, False))
    rounds: list[Round] = []
    loads = [os.getloadavg()[0]]
    for index in range(options.rounds):
        found = Round()
        for stage, traced in stages:
            with _servers(index, options, traced=traced) as clients:
                asyncio.run(stage(index, clients, options, found))
        rounds.append(found)
        loads.append(os.getloadavg()[0])
    return Results.of(rounds, options, loads)


@contextmanager
def _servers(index: int, options: Options, *, traced: bool) -> Iterator[Clients]:
    """Every server started afresh (in an order that rotates; ``traced``: with ``tracemalloc``
    on), with its client; stopped after."""
    with tempfile.TemporaryDirectory(prefix="service-race-") as scratch, ExitStack() as stack:
        root = Path(scratch)
        releases = root / "held"
        homes = [root / n for n in ("sqlite", "memory", "graph", "langgraph")]
        for folder in (releases, *homes):
            folder.mkdir()
        os.environ[RELEASE_DIR] = str(releases)
        # LangGraph Server runs at most this many at once and queues the rest: every held run,
        # and the probe the memory measure holds beside them, must be inside the model at once.
        jobs = max(*options.concurrency, options.held_runs + 1)
        frames = 1 if traced else 0  # the allocation's line: all the heap's size needs
        starts = [
            partial(runyard_server, homes[0], releases, traced_frames=frames),
            partial(
                runyard_server, homes[1], releases, in_memory=True, name=RUNYARD_MEMORY,
                traced_frames=frames,
            ),
            partial(
                runyard_server, homes[2], releases, name=RUNYARD_GRAPH, factory=GRAPH_APP,
                traced_frames=frames,
            ),
            partial(langgraph_server, options.venv, homes[3], releases, jobs, traced_frames=frames),
        ]  # fmt: skip
        _say(f"round {index + 1}: starting the servers")
        shift = index % len(starts)
        servers = [stack.enter_context(start()) for start in starts[shift:] + starts[:shift]]
        servers.sort(key=lambda s: SYSTEMS.index(s.name))
        yield {
            server.name: (
                LangGraphClient(server.port)
                if server.name == LANGGRAPH
                else RunyardClient(server.port),
                server,
            )
            for server in servers
        }


def _options(args: argparse.Namespace) -> Options:
    quick = args.quick
    return Options(
        venv=Path(args.langgraph_venv),
        rounds=args.rounds or (1 if quick else 3),
        seconds=args.seconds or (4.0 if quick else 15.0),
        warmup=2.0 if quick else 5.0,
        concurrency=(1, 10, 100),
        # 500 held at once on SQLite made runyard answer some event streams with a 500 (its
        # connection pool's 30 s checkout timeout; docs/benchmarks.md, "Service race").
        held_runs=args.held_runs or (100 if quick else 200),
        listeners=args.listeners,
        memory_only=args.only == "memory",
    )


def _not_run(rows: Sequence[tuple[str, str]], why: str) -> list[dict[str, str]]:
    return [
        {"what": what, "target": target, "measured": f"not run: {why}", "met": "—"}
        for what, target in rows
    ]


def _race(args: argparse.Namespace, options: Options) -> list[dict[str, str]]:
    """The race on SQLite and ``memory://``: its rows, its section printed (and written)."""
    results = run_rounds(options)
    if options.memory_only:
        print(render_memory(results))
        return [memory_row(results)]
    print(render_section(results))
    if args.write_docs:
        write_section(render_section(results))
    return render_rows(results)


def _replica_race(args: argparse.Namespace, options: Options) -> list[dict[str, str]]:
    """The race on PostgreSQL + Redis (``--postgres``): its rows, its section likewise."""
    results = _race_replicas.run(options, args.postgres, args.redis)
    section = _race_replicas.render_section(results, versions(options.venv))
    print(section)
    if args.write_docs:
        _race_replicas.write_section(section)
    return [row.as_json() for row in _race_replicas.render_rows(results)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--langgraph-venv", default="/tmp/lg-venv", help="LangGraph Server's venv")
    parser.add_argument("--quick", action="store_true", help="one short round (~2 minutes)")
    json_option(parser)
    parser.add_argument(
        "--write-docs", action="store_true", help="rewrite docs/benchmarks.md's section"
    )
    parser.add_argument("--rounds", type=int, help="rounds, each with fresh servers (3; quick 1)")
    parser.add_argument("--seconds", type=float, help="seconds per throughput row (15; quick 4)")
    parser.add_argument("--held-runs", type=int, help="runs held for memory (200; quick 100)")
    parser.add_argument("--listeners", type=int, default=1000, help="SSE listeners on one thread")
    parser.add_argument(
        "--only", choices=["memory"], help="only this part: memory per held run (writes no docs)"
    )
    parser.add_argument(
        "--postgres", help="race two runyard replicas on this PostgreSQL server + Redis instead"
    )
    parser.add_argument("--redis", default=redis_option(), help="Redis URL (default: a free db)")
    args = parser.parse_args(argv)
    if args.only and (args.write_docs or args.postgres):
        parser.error("--only runs part of the SQLite race: not with --write-docs or --postgres")
    options = _options(args)
    race, names = (_replica_race, REPLICA_ROWS) if args.postgres else (_race, ROWS)
    if args.only:
        names = (ROWS[4],)
    langgraph = options.venv / "bin" / "langgraph"
    if not langgraph.exists():
        why = f"no LangGraph Server at {langgraph} (see the script's docstring to set it up)"
        rows = _not_run(names, why)
        print(why, file=sys.stderr)
    else:
        try:
            rows = race(args, options)
        except (RuntimeError, AssertionError, OSError) as error:
            # A server that failed or answered wrongly: the rows say so, make bench goes on.
            traceback.print_exc()
            cause = f" ({error.__cause__})" if error.__cause__ else ""
            why = (str(error).splitlines() or [type(error).__name__])[0] + cause
            rows = _not_run(names, why)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    elif not args.write_docs:
        print("\n| what | target | measured | met |\n|---|---|---|---|")
        for row in rows:
            print(f"| {row['what']} | {row['target']} | {row['measured']} | {row['met']} |")


if __name__ == "__main__":
    main()
