"""Tool ledger of the in-memory store."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from runyard.storage.errors import RunNotFound, StaleLease
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import ToolLedger
from runyard.storage.records import OPEN_RUN_STATUSES, RunProgress, ToolCallEntry

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
        run = self._runs.get(run_id)
        if run is None:
            raise RunNotFound(run_id)
        if run.status not in OPEN_RUN_STATUSES or run.lease_epoch != epoch:
            raise StaleLease(
                f"run {run_id!r} is {run.status} at lease epoch {run.lease_epoch}, not {epoch}"
            )
        if state is not None:
            self._progress[run_id] = copy.deepcopy(state)
        known = self._tool_calls.setdefault(run_id, {})
        for call in calls:
            if call.state == "settled" or call.tool_call_id not in known:
                known[call.tool_call_id] = copy.deepcopy(call)

    async def load_progress(self, run_id: str) -> RunProgress:
        state = self._progress.get(run_id)
        calls = self._tool_calls.get(run_id, {})
        return RunProgress(copy.deepcopy(state), copy.deepcopy(calls))

    async def drop_progress(self, run_id: str) -> None:
        self._progress.pop(run_id, None)
        self._tool_calls.pop(run_id, None)
