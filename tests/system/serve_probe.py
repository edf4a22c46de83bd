"""``runyard serve`` as the system tests start it: the real command, plus one probe.

On SIGUSR1 the process writes ``<sequence> <asyncio tasks> <RSS kB>`` to the file named by
``RUNYARD_PROBE_FILE`` (replacing it), so the soak can watch for leaked tasks and growing memory
from outside. The handler runs on the main thread, where the server's event loop runs, so
``asyncio.all_tasks()`` sees the server's tasks. Nothing else differs from ``python -m runyard``.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
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
        tasks = len(asyncio.all_tasks())
    except RuntimeError:  # no loop yet, or already closed
        tasks = -1
    probe = Path(os.environ["RUNYARD_PROBE_FILE"])
    partial = probe.with_suffix(".tmp")
    partial.write_text(f"{next(_SEQUENCE)} {tasks} {rss_kb()}\n")
    partial.replace(probe)  # readers never see half a line


if __name__ == "__main__":
    signal.signal(signal.SIGUSR1, report)
    main()
