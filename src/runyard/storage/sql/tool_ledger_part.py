"""Tool ledger of ``SqlStore``: ``tool_ledger`` rows, and the progress checkpoint in
``checkpoints`` under a key of its own (never the run id a suspension is kept under, so code
that asks "was it suspending?" never meets a progress checkpoint)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from runyard.ids import now_ms
from runyard.storage.records import RunProgress, ToolCallEntry
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.journal_writes import fence_run, progress_key, write_journal
from runyard.storage.sql.schema import checkpoints, tool_ledger
from runyard.storage.sql.state import SqlState

__all__ = ["ToolLedgerPart"]


class ToolLedgerPart(SqlState):
    """Progress and tool calls of running runs, every write fenced by the lease epoch."""

    async def record_progress(
        self,
        run_id: str,
        calls: Sequence[ToolCallEntry],
        /,
        *,
        epoch: int,
        state: dict[str, Any] | None = None,
    ) -> None:
        async with write(self._engine) as conn:
            await fence_run(conn, run_id, epoch)
            await write_journal(conn, run_id, calls, state, now_ms())

    async def load_progress(self, run_id: str) -> RunProgress:
        key = progress_key(run_id)
        async with read(self._engine) as conn:
            state = (
                await conn.execute(select(checkpoints.c.state).where(checkpoints.c.key == key))
            ).scalar_one_or_none()
            rows = (
                await conn.execute(select(tool_ledger).where(tool_ledger.c.run_id == run_id))
            ).all()
        calls = {
            r.tool_call_id: ToolCallEntry(r.tool_call_id, r.tool_name, r.state, r.outcome)
            for r in rows
        }
        return RunProgress(state, calls)
