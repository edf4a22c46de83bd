"""``runyard serve`` as the system tests start it: the real command, plus one probe.

On SIGUSR1 the process writes ``<sequence> <asyncio tasks> <RSS kB>``, then the name of each
task's coroutine (one a line), to the file named by ``RUNYARD_PROBE_FILE`` (replacing it), so the
soak can watch for leaked tasks and growing memory from outside. On SIGUSR2 it writes the 40 most
numerous kinds of live object (``gc``), with their counts before and after a full collection, to
that name plus ``.objects``: sent by hand to a replica whose memory grows, twice some minutes
apart, it shows what piles up. The handlers run on the main thread, where the server's event loop
runs, so ``asyncio.all_tasks()`` sees the server's tasks. Nothing else differs from
``python -m runyard``.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import signal
from collections import Counter
from pathlib import Path
from types import FrameType

from runyard.cli import main

_SEQUENCE = itertools.count(1)


def rss_kb() -> int:
    """This process's resident set, from /proc (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def report(_signal: int, _frame: FrameType | None) -> None:
    try:
        names = sorted(task.get_coro().__qualname__ for task in asyncio.all_tasks())  # type: ignore[union-attr]
    except RuntimeError:  # no loop yet, or already closed
        names = []
    probe = Path(os.environ["RUNYARD_PROBE_FILE"])
    partial = probe.with_suffix(".tmp")
    partial.write_text("\n".join([f"{next(_SEQUENCE)} {len(names)} {rss_kb()}", *names]) + "\n")
    partial.replace(probe)  # readers never see half a line


def census(_signal: int, _frame: FrameType | None) -> None:
    """Live objects by kind, before and after a full collection: what only awaits the cyclic
    collector is garbage, what survives it is held."""
    before = Counter(type(thing).__qualname__ for thing in gc.get_objects())
    collected = gc.collect()
    after = Counter(type(thing).__qualname__ for thing in gc.get_objects())
    lines = [f"collected {collected}"]
    lines += [f"{before[kind]} {count} {kind}" for kind, count in after.most_common(40)]
    Path(os.environ["RUNYARD_PROBE_FILE"] + ".objects").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    signal.signal(signal.SIGUSR1, report)
    signal.signal(signal.SIGUSR2, census)
    main()
