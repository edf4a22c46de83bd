"""Where a held runyard run's heap goes: a ``tracemalloc`` snapshot diff inside runyard's server.

    python benchmarks/held_run_heap.py [--held-runs 100] [--in-memory] [--frames 25] [--top 15]

Starts the service race's runyard server (``service_race_app:create``, SQLite or ``memory://``)
with ``tracemalloc`` on (``--frames`` deep), warms it up as the race does, then holds
``--held-runs`` runs in their first model call twice, as the race's memory measure does
(``_race_measures.held_memory``), with the server dumping a snapshot before and with the runs
held (``_held_runs``). Prints the second pair's difference per held run, in three tables: by the
package of the line that allocated (runyard's by subpackage), by that line, and by the innermost
line of runyard's own code (``src/runyard``) on the allocation's stack, which is where a change
would go.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from _held_runs import RELEASE_DIR, SNAPSHOTS
from _race_clients import RunyardClient
from _race_measures import held_memory, throughput
from _race_servers import Server, runyard_server

_RUNYARD = f"{os.sep}runyard{os.sep}"


def _where(frame: tracemalloc.Frame) -> str:
    parts = Path(frame.filename).parts
    for root in ("runyard", "site-packages", "benchmarks"):
        if root in parts:
            return f"{'/'.join(parts[parts.index(root) :])}:{frame.lineno}"
    return f"{'/'.join(parts[-2:])}:{frame.lineno}"


def _package(frame: tracemalloc.Frame) -> str:
    """``runyard/<subpackage>``, a site package's name, or the standard library's package
    (``asyncio``) or module (``contextlib``)."""
    parts = _where(frame).split(":")[0].split("/")
    if parts[0] == "runyard":
        return "/".join(parts[:2])
    if parts[0] == "site-packages":
        return parts[1]
    return parts[-1].removesuffix(".py") if parts[0].startswith("python") else parts[0]


def _runyard_frame(traceback: tracemalloc.Traceback) -> str:
    """The innermost frame in runyard's own code, or the allocating one if none is."""
    # tracemalloc orders a traceback from the oldest frame: the allocating one is last.
    innermost = reversed(traceback)
    mine = next((f for f in innermost if _RUNYARD in f.filename and "/src/" in f.filename), None)
    return _where(mine or traceback[-1])


def _table(title: str, sizes: Counter[str], counts: Counter[str], runs: int, top: int) -> str:
    rows = [f"| {title} | bytes per held run | blocks per held run |", "|---|---:|---:|"]
    for where, size in sizes.most_common(top):
        rows.append(f"| `{where}` | {size / runs:,.0f} | {counts[where] / runs:.1f} |")
    return "\n".join(rows)


async def _profile(server: Server, runs: int, releases: Path, dumps: Path) -> None:
    client = RunyardClient(server.port)
    await throughput(client, server, 10, 5.0)
    await held_memory(client, server, runs, releases)
    await asyncio.to_thread(_empty, dumps)  # the first time grows what the server keeps for good
    found = await held_memory(client, server, runs, releases)
    print(f"{found.kib_per_run:.1f} KiB of traced heap per held run ({runs} held)\n")


def _empty(folder: Path) -> None:
    for old in folder.iterdir():
        old.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-runs", type=int, default=100)
    parser.add_argument("--in-memory", action="store_true", help="memory:// instead of SQLite")
    parser.add_argument("--frames", type=int, default=25, help="frames traced per allocation")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="held-run-heap-") as scratch:
        root = Path(scratch)
        releases, dumps, home = root / "held", root / "snapshots", root / "server"
        for folder in (releases, dumps, home):
            folder.mkdir()
        os.environ[RELEASE_DIR], os.environ[SNAPSHOTS] = str(releases), str(dumps)
        with runyard_server(
            home, releases, in_memory=args.in_memory, traced_frames=args.frames
        ) as server:
            asyncio.run(_profile(server, args.held_runs, releases, dumps))
        before, after = (
            tracemalloc.Snapshot.load(str(p)) for p in sorted(dumps.glob("*-[12].snapshot"))
        )
    groupings: dict[str, Callable[[tracemalloc.Traceback], str]] = {
        "package that allocated": lambda t: _package(t[-1]),
        "allocated at": lambda t: _where(t[-1]),
        "innermost runyard line on the stack": _runyard_frame,
    }
    sizes: dict[str, Counter[str]] = {title: Counter() for title in groupings}
    counts: dict[str, Counter[str]] = {title: Counter() for title in groupings}
    for diff in after.compare_to(before, "traceback"):
        for title, group in groupings.items():
            sizes[title][group(diff.traceback)] += diff.size_diff
            counts[title][group(diff.traceback)] += diff.count_diff
    for title in groupings:
        print(_table(title, sizes[title], counts[title], args.held_runs, args.top), end="\n\n")


if __name__ == "__main__":
    main()
