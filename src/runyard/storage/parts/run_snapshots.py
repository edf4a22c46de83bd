"""``RunSnapshots``: one document per finished run of a thread, read back a page of runs at a time.

Runs follow each other in a thread's log (one open run per thread), so each snapshot covers one
stretch of event ids and snapshots order by them. The service writes them in log order, so they
cover a prefix of the log: ``last_snapshot_event_id`` is where folding the log has to resume.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from runyard.storage.records import RunSnapshot

__all__ = ["RunSnapshots"]


@runtime_checkable
class RunSnapshots(Protocol):
    """Save, page through and find the end of a thread's run snapshots."""

    async def save_run_snapshots(self, thread_id: str, snapshots: Sequence[RunSnapshot], /) -> None:
        """Insert or replace (by run id) the batch in one transaction: saving a run twice keeps
        the later document, so writers that race with the same snapshot do no harm."""
        ...

    async def read_run_snapshots(
        self, thread_id: str, *, before_event_id: int | None = None, limit: int | None = None
    ) -> list[RunSnapshot]:
        """The newest ``limit`` snapshots whose runs ended before event ``before_event_id``
        (None: all), in log order (oldest first)."""
        ...

    async def last_snapshot_event_id(self, thread_id: str) -> int:
        """The highest ``last_event_id`` of the thread's snapshots; 0 when it has none."""
        ...
