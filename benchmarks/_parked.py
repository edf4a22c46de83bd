"""Resident memory per parked run: many runs at once, each waiting inside its tool.

Each measurement runs in a fresh interpreter (``python _parked.py SYSTEM RUNS``), so memory one
system freed cannot be reused by the next and make it look smaller. The parent runs the systems
in turn, several times, and keeps each one's median.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from _fake_script import ANSWER
from _peers import Gate, System, build

__all__ = ["parked_kib"]

_WARMUP_RUNS = 20


def parked_kib(systems: Sequence[str], *, runs: int, repeats: int) -> dict[str, float]:
    """KiB of resident memory per parked run, per system: the median of ``repeats`` fresh processes."""
    found: dict[str, list[float]] = {key: [] for key in systems}
    for _ in range(repeats):
        for key in systems:
            found[key].append(_measure_in_child(key, runs))
    return {key: statistics.median(values) for key, values in found.items()}


def _measure_in_child(key: str, runs: int) -> float:
    done = subprocess.run(
        [sys.executable, str(Path(__file__)), key, str(runs)],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(json.loads(done.stdout)["kib_per_run"])


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        # No /proc (macOS): the peak is as good, since nothing has been freed yet.
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def _settled_rss() -> int:
    gc.collect()
    return _rss_bytes()


async def _park(key: str, runs: int) -> float:
    system, gate = build(key)
    for _ in range(_WARMUP_RUNS):
        await system.generate()
    await _hold(system, gate, _WARMUP_RUNS)  # warm the waiting path too
    before = _settled_rss()
    parked, answers = await _hold(system, gate, runs)
    if answers != [ANSWER] * runs:
        raise AssertionError(f"{key}: parked runs did not all finish with the answer")
    return (parked - before) / runs / 1024


async def _hold(system: System, gate: Gate, runs: int) -> tuple[int, list[str]]:
    """Park ``runs`` runs inside the tool, read the RSS, release them: the RSS and the answers."""
    gate.park(runs)
    tasks = [asyncio.create_task(system.generate()) for _ in range(runs)]
    await asyncio.wait_for(gate.everyone_in.wait(), timeout=120)
    parked = _settled_rss()
    gate.release()
    return parked, list(await asyncio.gather(*tasks))


def main(argv: Sequence[str]) -> None:
    key, runs = argv[0], int(argv[1])
    kib = asyncio.run(_park(key, runs))
    print(json.dumps({"system": key, "runs": runs, "kib_per_run": kib}))


if __name__ == "__main__":
    main(sys.argv[1:])
