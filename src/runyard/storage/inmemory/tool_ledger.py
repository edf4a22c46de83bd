"""Tool ledger of the in-memory store."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runyard.storage.inmemory.json_copy import entry_copy, json_copy
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import ToolLedger
from runyard.storage.records import RunProgress, ToolCallEntry

__all__ = ["ToolLedgerPart"]


class ToolLedgerPart(MemoryState, ToolLedger):
    """Progress checkpoints and tool calls by run id, fenced by the runs' lease epochs."""

    async def record_progress(
        self,
        run_id: str,
        calls: Sequence[ToolCallEntry],
        /,
        *,
        epoch: int,
        state: dict[str, Any] | None = None,
    ) -> None:
        self._fence(run_id, epoch)
        self._keep_journal(run_id, calls, state)

    async def load_progress(self, run_id: str) -> RunProgress:
        state = self._progress.get(run_id)
        calls = self._tool_calls.get(run_id, {})
        return RunProgress(json_copy(state), {i: entry_copy(c) for i, c in calls.items()})
