"""The tool calls a run leaves pending, and running them when a later segment carries it on.

A suspension keeps its calls in the checkpoint as ``PendingToolCall`` entries. A resume answers
one of them and runs those that never ran; a recovery after a crash replays what the journal
settled, runs again what may run twice and reports the rest as interrupted. Nothing here adds
to the message list or writes to the sink: the loop settles the outcomes these return.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runyard.messages import ToolCallPart
from runyard.runtime.journal import INTERRUPTED_TOOL_ERROR, JournalCall
from runyard.runtime.state import PendingToolCall
from runyard.runtime.tool_runner import ToolOutcome, ToolRunner, WindowsResult, settled_call

__all__ = ["recover_calls", "resume_calls", "still_pending", "unexecuted_entry"]


async def resume_calls(
    runner: ToolRunner, pending: dict[str, PendingToolCall], tool_call_id: str, data: Any
) -> tuple[list[ToolOutcome], dict[str, PendingToolCall]]:
    """Answer ``tool_call_id`` with ``data`` and run the calls that never ran: the outcomes in
    the calls' order, and the calls still waiting after that (suspended again, or not reached)."""
    target = pending[tool_call_id]
    outcomes = {tool_call_id: await runner.execute(_as_call(target), resume_data=data)}
    waiting = [p for p in pending.values() if not p.suspended and p.tool_call_id != tool_call_id]
    windows = await runner.run_windows([_as_call(p) for p in waiting], {})
    outcomes.update((o.call.tool_call_id, o) for o in windows.outcomes)
    left = {c.tool_call_id for c in windows.unexecuted}
    still: dict[str, PendingToolCall] = {}
    for call_id, entry in pending.items():
        outcome = outcomes.get(call_id)
        if outcome is not None and outcome.kind == "suspended":
            still[call_id] = _suspended_entry(outcome)
        elif outcome is None and (entry.suspended or call_id in left):
            still[call_id] = entry
    return [outcomes[i] for i in pending if i in outcomes], still


async def recover_calls(
    runner: ToolRunner, pending: dict[str, PendingToolCall], calls: Mapping[str, JournalCall]
) -> tuple[list[ToolOutcome], WindowsResult]:
    """Settle the calls of the last step from the journal's ``calls``: replayed when they
    settled, run again when they never started or may run twice, interrupted otherwise. The
    outcomes in the calls' order, and the windows of the calls that ran again."""
    outcomes: dict[str, ToolOutcome] = {}
    again: list[ToolCallPart] = []
    for call in map(_as_call, pending.values()):
        known = calls.get(call.tool_call_id)
        if known is not None and known.settled:
            outcomes[call.tool_call_id] = _replayed(call, known)
        elif known is not None and not _retry_safe(runner, call.tool_name):
            interrupted = ToolOutcome(
                call, "error", output=INTERRUPTED_TOOL_ERROR.format(name=call.tool_name)
            )
            if runner.journal is not None:
                await runner.journal.record([settled_call(interrupted)])
            outcomes[call.tool_call_id] = interrupted
        else:
            again.append(call)
    windows = await runner.run_windows(again, {})
    outcomes.update((o.call.tool_call_id, o) for o in windows.outcomes)
    return [outcomes[i] for i in pending if i in outcomes], windows


def still_pending(windows: WindowsResult) -> dict[str, PendingToolCall]:
    """The calls a suspended stretch of windows leaves: the suspended and the unexecuted."""
    pending = {
        o.call.tool_call_id: _suspended_entry(o) for o in windows.outcomes if o.kind == "suspended"
    }
    pending.update((c.tool_call_id, unexecuted_entry(c)) for c in windows.unexecuted)
    return pending


def unexecuted_entry(call: ToolCallPart) -> PendingToolCall:
    return PendingToolCall(
        tool_call_id=call.tool_call_id, tool_name=call.tool_name, args=call.args, suspended=False
    )


def _retry_safe(runner: ToolRunner, tool_name: str) -> bool:
    tool = runner.tools.get(tool_name)
    return tool is None or tool.retry_safe  # an unknown tool fails again without effect


def _as_call(entry: PendingToolCall) -> ToolCallPart:
    return ToolCallPart(tool_call_id=entry.tool_call_id, tool_name=entry.tool_name, args=entry.args)


def _replayed(call: ToolCallPart, known: JournalCall) -> ToolOutcome:
    """A settled call's outcome as the journal holds it: it does not run again."""
    if known.is_error:
        return ToolOutcome(call, "error", output=known.output)
    return ToolOutcome(call, "success", output=known.output, raw=known.output)


def _suspended_entry(outcome: ToolOutcome) -> PendingToolCall:
    call = outcome.call
    return PendingToolCall(
        tool_call_id=call.tool_call_id,
        tool_name=call.tool_name,
        args=call.args,
        suspended=True,
        payload=outcome.output,
        resume_schema=outcome.resume_schema,
        nested=outcome.nested,
    )
