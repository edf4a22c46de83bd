"""``StoreRunJournal``: the ``RunJournal`` of a run this process drives, in the ``ToolLedger``.

Every write carries the run's lease epoch and is fenced in its transaction: an owner that was
superseded (its lease expired and another replica took the run) writes nothing — its run stops
here, as when the heartbeat finds the lease lost. A progress checkpoint, with the ``started``
rows of the first window of its calls, goes with the event log's batch that stores the response
it follows (its ``tool-call`` events) or a later one (``EventWriter.journal``), and is durable
before the calls run: a takeover always finds where the step ended in the log
(``run_takeover``), and no call runs before its row is stored. ``started`` rows of later windows
are written in a transaction of their own (``record_progress``) before their calls run. A
call's ``settled`` row goes with the event log's next batch too: in the transaction that stores
the call's ``tool-result`` event, or one before it — durable before any client sees the result,
as the exactly-once guarantee asks (docs/service.md). So neither costs a transaction of its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from runyard.errors import RunAbortedError
from runyard.runtime import AgentState, JournalCall
from runyard.service.event_log import EventLogWriteError, EventWriter
from runyard.service.runs.active import ActiveRun
from runyard.storage import LedgerWrite, RunProgress, StaleLease, ToolCallEntry, ToolLedger

__all__ = ["StoreRunJournal", "journal_calls"]


class StoreRunJournal:
    """Journals ``run`` at its epoch; ``taken`` returns once every chunk the run's agent sent
    so far is mapped to events and queued on ``writer``, which stores progress and settled
    calls with its batches."""

    def __init__(
        self,
        store: ToolLedger,
        run: ActiveRun,
        taken: Callable[[], Awaitable[None]],
        writer: EventWriter,
    ) -> None:
        self._store = store
        self._run = run
        self._taken = taken
        self._writer = writer

    async def record(
        self, calls: Sequence[JournalCall], *, state: AgentState | None = None
    ) -> None:
        run = self._run
        if run.lease_lost:
            raise RunAbortedError()
        rows = tuple(_entry(call) for call in calls)
        if state is None and rows and all(row.state == "settled" for row in rows):
            self._writer.journal(LedgerWrite(run.run_id, run.epoch, rows), run.lose_lease)
            return
        try:
            if state is None:
                await self._store.record_progress(run.run_id, rows, epoch=run.epoch)
                return
            # Queued after the response's events, so stored with them or after them.
            await self._taken()
            saved = state.model_dump(mode="json")
            self._writer.journal(LedgerWrite(run.run_id, run.epoch, rows, saved), run.lose_lease)
            await self._writer.flush()
        except StaleLease as exc:
            run.lose_lease()  # another replica carries the run on: this one stops, silently
            raise RunAbortedError() from exc
        except EventLogWriteError as exc:
            if run.lease_lost:  # the batch was refused for a superseded epoch (``lost``)
                raise RunAbortedError() from exc
            raise


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
