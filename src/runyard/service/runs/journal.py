"""``StoreRunJournal``: the ``RunJournal`` of a run this process drives, in the ``ToolLedger``.

Every write carries the run's lease epoch and is fenced in its transaction: an owner that was
superseded (its lease expired and another replica took the run) writes nothing — its run stops
here, as when the heartbeat finds the lease lost. A progress checkpoint is written only once the
response it follows is in the event log (its ``tool-call`` events stored), so a takeover always
finds where the step ended in the log (``run_takeover``). ``started`` rows are written, in their
own transaction, before their calls run. A call's ``settled`` row goes with the event log's next
batch instead (``EventWriter.record_settled``): in the transaction that stores the call's
``tool-result`` event, or one before it — durable before any client sees the result, as the
exactly-once guarantee asks (docs/service.md), without a transaction of its own on the run's way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from runyard.errors import RunAbortedError
from runyard.runtime import AgentState, JournalCall
from runyard.service.event_log import EventWriter
from runyard.service.runs.active import ActiveRun
from runyard.storage import RunProgress, SettledCalls, StaleLease, ToolCallEntry, ToolLedger

__all__ = ["StoreRunJournal", "journal_calls"]


class StoreRunJournal:
    """Journals ``run`` at its epoch; ``logged`` returns once the run's chunks so far are
    logged and durable; settled calls go with ``writer``'s next batch."""

    def __init__(
        self,
        store: ToolLedger,
        run: ActiveRun,
        logged: Callable[[], Awaitable[None]],
        writer: EventWriter,
    ) -> None:
        self._store = store
        self._run = run
        self._logged = logged
        self._writer = writer

    async def record(
        self, calls: Sequence[JournalCall], *, state: AgentState | None = None
    ) -> None:
        run = self._run
        if run.lease_lost:
            raise RunAbortedError()
        rows = [_entry(call) for call in calls]
        if state is None and rows and all(row.state == "settled" for row in rows):
            self._writer.record_settled(
                SettledCalls(run.run_id, run.epoch, tuple(rows)), run.lose_lease
            )
            return
        if state is not None:
            await self._logged()
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
