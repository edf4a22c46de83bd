"""``StoreRunJournal``: the ``RunJournal`` of a run this process drives, in the ``ToolLedger``.

Every write carries the run's lease epoch and is fenced in its own transaction: an owner that
was superseded (its lease expired and another replica took the run) writes nothing — its run
stops here, as when the heartbeat finds the lease lost. A progress checkpoint is written only
once the response it follows is in the event log (its ``tool-call`` events stored), so a
takeover always finds where the step ended in the log (``run_takeover``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from runyard.errors import RunAbortedError
from runyard.runtime import AgentState, JournalCall
from runyard.service.active_run import ActiveRun
from runyard.storage import RunProgress, StaleLease, ToolCallEntry, ToolLedger

__all__ = ["StoreRunJournal", "journal_calls"]


class StoreRunJournal:
    """Journals ``run`` at its epoch; ``logged`` returns once the run's chunks so far are
    logged and durable."""

    def __init__(
        self, store: ToolLedger, run: ActiveRun, logged: Callable[[], Awaitable[None]]
    ) -> None:
        self._store = store
        self._run = run
        self._logged = logged

    async def record(
        self, calls: Sequence[JournalCall], *, state: AgentState | None = None
    ) -> None:
        if state is not None:
            await self._logged()
        run = self._run
        rows = [_entry(call) for call in calls]
        saved = None if state is None else state.model_dump(mode="json")
        try:
            await self._store.record_progress(run.run_id, rows, epoch=run.epoch, state=saved)
        except StaleLease as exc:
            run.lose_lease()  # another replica carries the run on: this one stops, silently
            raise RunAbortedError() from exc


def journal_calls(progress: RunProgress) -> dict[str, JournalCall]:
    """The ledger's rows as the runtime's ``recover`` takes them."""
    calls = {}
    for entry in progress.calls.values():
        outcome = entry.outcome or {}
        calls[entry.tool_call_id] = JournalCall(
            entry.tool_call_id,
            entry.tool_name,
            settled=entry.state == "settled",
            output=outcome.get("output"),
            is_error=bool(outcome.get("isError")),
        )
    return calls


def _entry(call: JournalCall) -> ToolCallEntry:
    if not call.settled:
        return ToolCallEntry(call.tool_call_id, call.tool_name, "started")
    outcome = {"output": call.output, "isError": call.is_error}
    return ToolCallEntry(call.tool_call_id, call.tool_name, "settled", outcome)
