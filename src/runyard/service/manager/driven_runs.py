"""``DrivenRuns``: the run segments this process drives right now, one per thread.

The run manager's collaborators all look here (a confirm or a cancel lets the thread's segment
settle, the heartbeat stops the runs whose lease was lost, the close hands them over); only
``RunDriver`` adds and drops them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping

from runyard.service.runs.active import ActiveRun

__all__ = ["SETTLE_SECONDS", "DrivenRuns"]

SETTLE_SECONDS = 10.0
"""How long a caller waits for a segment to finish what it is doing, or a run elsewhere to stop."""


class DrivenRuns(Mapping[str, ActiveRun]):
    """Thread key (``Owner.thread_key``) → the segment this process drives on that thread."""

    def __init__(self) -> None:
        self._by_thread: dict[str, ActiveRun] = {}

    def __getitem__(self, thread_key: str) -> ActiveRun:
        return self._by_thread[thread_key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_thread)

    def __len__(self) -> int:
        return len(self._by_thread)

    def add(self, run: ActiveRun) -> None:
        """``run`` is driven from now on (a thread's newer segment replaces its older one)."""
        self._by_thread[run.thread_id] = run

    def drop(self, run: ActiveRun) -> None:
        """``run``'s segment has ended; a newer segment of its thread stays."""
        if self._by_thread.get(run.thread_id) is run:
            del self._by_thread[run.thread_id]

    def tasks(self) -> list[asyncio.Task[None]]:
        """The tasks of the segments still going."""
        return [run.task for run in self._by_thread.values() if run.task is not None]

    async def settle(self, thread_key: str) -> None:
        """Let the thread's segment finish what it is doing (bounded by ``SETTLE_SECONDS``)."""
        run = self._by_thread.get(thread_key)
        if run is not None and run.task is not None:
            await asyncio.wait([run.task], timeout=SETTLE_SECONDS)

    async def wait_idle(self, thread_key: str) -> None:
        """Wait until no segment of the thread is driven here, a later one included."""
        run = self._by_thread.get(thread_key)
        while run is not None and run.task is not None:
            await asyncio.gather(asyncio.shield(run.task), return_exceptions=True)
            run = self._by_thread.get(thread_key)
