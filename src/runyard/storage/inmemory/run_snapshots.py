"""Run snapshots of the in-memory store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from runyard.storage.inmemory.json_copy import json_copy
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import RunSnapshots
from runyard.storage.records import RunSnapshot

__all__ = ["RunSnapshotsPart"]


class RunSnapshotsPart(MemoryState, RunSnapshots):
    """Each thread's run snapshots by run id."""

    async def save_run_snapshots(self, thread_id: str, snapshots: Sequence[RunSnapshot]) -> None:
        self._save_snapshots(thread_id, snapshots)

    async def read_run_snapshots(
        self, thread_id: str, *, before_event_id: int | None = None, limit: int | None = None
    ) -> list[RunSnapshot]:
        kept = self._snapshots.get(thread_id, {}).values()
        chosen = sorted(
            (s for s in kept if before_event_id is None or s.last_event_id < before_event_id),
            key=lambda s: s.last_event_id,
        )
        if limit is not None:
            chosen = chosen[-limit:] if limit else []
        return [replace(s, data=json_copy(s.data)) for s in chosen]

    async def last_snapshot_event_id(self, thread_id: str) -> int:
        kept = self._snapshots.get(thread_id, {}).values()
        return max((s.last_event_id for s in kept), default=0)
