"""Run snapshots of ``SqlStore``: one row per finished run, paged by its place in the log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, func, select

from runyard.storage.records import RunSnapshot
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.schema import run_snapshots
from runyard.storage.sql.state import SqlState

__all__ = ["SNAPSHOT_COLUMNS", "SnapshotsPart", "snapshot_rows"]

SNAPSHOT_COLUMNS = ["first_event_id", "last_event_id", "data", "created_at"]
"""What saving a run's snapshot again replaces."""


def snapshot_rows(thread_id: str, snapshots: Sequence[RunSnapshot]) -> list[dict[str, Any]]:
    """The ``run_snapshots`` rows of ``snapshots`` of the thread."""
    return [
        {
            "thread_id": thread_id,
            "run_id": s.run_id,
            "first_event_id": s.first_event_id,
            "last_event_id": s.last_event_id,
            "data": s.data,
            "created_at": s.created_at,
        }
        for s in snapshots
    ]


def _snapshot(row: Row[Any]) -> RunSnapshot:
    return RunSnapshot(
        row.thread_id, row.run_id, row.first_event_id, row.last_event_id, row.data, row.created_at
    )


class SnapshotsPart(SqlState):
    """Each thread's run snapshots, upserted by run id."""

    async def save_run_snapshots(self, thread_id: str, snapshots: Sequence[RunSnapshot]) -> None:
        if not snapshots:
            return
        stmt = self._upsert(run_snapshots, ["thread_id", "run_id"], SNAPSHOT_COLUMNS)
        async with write(self._engine) as conn:
            await conn.execute(stmt, snapshot_rows(thread_id, snapshots))

    async def read_run_snapshots(
        self, thread_id: str, *, before_event_id: int | None = None, limit: int | None = None
    ) -> list[RunSnapshot]:
        stmt = select(run_snapshots).where(run_snapshots.c.thread_id == thread_id)
        if before_event_id is not None:
            stmt = stmt.where(run_snapshots.c.last_event_id < before_event_id)
        stmt = stmt.order_by(run_snapshots.c.last_event_id.desc()).limit(limit)
        async with read(self._engine) as conn:
            newest_first = [_snapshot(row) for row in await conn.execute(stmt)]
        return newest_first[::-1]

    async def last_snapshot_event_id(self, thread_id: str) -> int:
        stmt = select(func.max(run_snapshots.c.last_event_id)).where(
            run_snapshots.c.thread_id == thread_id
        )
        async with read(self._engine) as conn:
            return int((await conn.execute(stmt)).scalar_one() or 0)
