"""runyard's runtime overhead next to pydantic-ai's and LangGraph's agents, in one run.

Every system does the same work on an equivalent zero-latency model: one user message, the model
calls ``add(a, b)`` (an async tool), the tool returns, the model answers. Each is timed with
``generate``-style and streamed runs, all interleaved in one event loop, and its resident memory
per run parked inside the tool is measured in fresh processes. The result is printed and written
to the "Runtime overhead" section of docs/benchmarks.md; ``--json PATH`` writes the summary rows.

    python benchmarks/runtime_overhead.py [--iterations N] [--parked-runs N] [--no-write]
                                          [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from dataclasses import replace

from _parked import parked_kib
from _peers import System, build, check
from _profile import Profile, profile_runs
from _report import json_option, write_rows
from _runtime_overhead_report import Measured, render, summary_rows, write
from _timing import Variant, interleave

PEERS = ("pydantic-ai", "langgraph")
AGENTS = ("runyard", *PEERS)
TIMED = (*AGENTS, "model-layer")


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=600, help="timed runs per row")
    parser.add_argument("--warmup", type=int, default=50, help="untimed runs per row first")
    parser.add_argument("--parked-runs", type=int, default=1000, help="runs parked at once")
    parser.add_argument("--parked-repeats", type=int, default=3, help="fresh processes per system")
    parser.add_argument("--profile-runs", type=int, default=200, help="runyard runs profiled")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the docs")
    json_option(parser)
    return parser.parse_args(argv)


async def _time_and_profile(args: argparse.Namespace) -> Measured:
    """Check every system does the work, time them interleaved, then profile runyard."""
    systems: dict[str, System] = {}
    for key in TIMED:
        system, gate = build(key)
        await check(system, gate)
        systems[key] = system
    variants = [
        Variant(key, mode, getattr(system, mode))
        for key, system in systems.items()
        for mode in ("generate", "stream")
    ]
    _say(f"timing {len(variants)} rows, {args.iterations} runs each, interleaved")
    timed = await interleave(variants, warmup=args.warmup, iterations=args.iterations)
    _say("profiling runyard")
    profiles: dict[str, Profile] = {}
    for mode in ("generate", "stream"):
        run = getattr(systems["runyard"], mode)
        profiles[mode] = await profile_runs(run, args.profile_runs, top=6)
    names = {key: system.name for key, system in systems.items()}
    return Measured(timed, names, {}, args.parked_runs, profiles, args.warmup, args.iterations)


def _say(step: str) -> None:
    print(f"... {step}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    # Tracing a benchmark to a remote service would measure the network instead.
    os.environ["LANGSMITH_TRACING"] = os.environ["LANGCHAIN_TRACING_V2"] = "false"
    measured = asyncio.run(_time_and_profile(args))
    _say(f"parking {args.parked_runs} runs per system, {args.parked_repeats} fresh processes each")
    parked = parked_kib(AGENTS, runs=args.parked_runs, repeats=args.parked_repeats)
    measured = replace(measured, parked=parked)
    body = render(measured, PEERS)
    print(body)
    write_rows(args.json, summary_rows(measured, PEERS))
    if not args.no_write:
        write(body)
        print("\nWritten to docs/benchmarks.md")


if __name__ == "__main__":
    main()
