"""Taking over a run whose server died: where it carries on from, and what clients drop.

A run whose lease expired (its owner was killed, froze or lost the database) is carried on by
whichever replica's sweep takes it, on the same run id and thread. It resumes from its last
progress checkpoint (``ToolLedger``): the model response it recorded, the calls of it that
settled (replayed), started (run again only when retry-safe) or never began. A run that died
before its first step restarts from its user message. A run that already logged its
``run-finish``, or whose message is gone, is not carried on (the sweep closes it as before).

The new owner first logs ``run-resumed`` with ``afterEventId``: the id of the run's last event
that belongs to the step it resumes from — the ``tool-call`` events of the recorded response
(stored before its checkpoint, ``run_journal``), or for a restart the run's opening events.
Everything the dead server logged after it is said again from here, so clients drop it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runyard.messages import AgentMessage
from runyard.runtime import AgentState, JournalCall
from runyard.service.owner import Owner
from runyard.service.runs.journal import journal_calls
from runyard.storage import RunRecord, Store, StoredEvent

__all__ = ["Takeover", "plan_takeover"]

_OPENING = ("run-start", "tasks-update")
"""The events a run logs before its agent says anything (``RunSegment``)."""


@dataclass(frozen=True, slots=True)
class Takeover:
    """Where a run taken over carries on from: its progress checkpoint ``state`` and tool
    ``calls``, or (no checkpoint) its ``user`` message, from the start."""

    owner: Owner
    after_event_id: int
    state: AgentState | None = None
    calls: dict[str, JournalCall] = field(default_factory=dict)
    user: AgentMessage | None = None


async def plan_takeover(store: Store, run: RunRecord) -> Takeover | None:
    """How ``run`` (running, its owner dead) carries on; None when it cannot."""
    after = await store.last_snapshot_event_id(run.thread_id)
    events = [
        e for e in await store.read_events(run.thread_id, after_id=after) if e.run_id == run.run_id
    ]
    if not events or events[0].type != "run-start":
        return None
    if any(e.type == "run-finish" for e in events):
        return None
    owner = Owner.of_key(run.thread_id)
    progress = await store.load_progress(run.run_id)
    if progress.state is not None:
        state = AgentState.model_validate(progress.state)
        mark = _step_end(events, state)
        if mark is None:
            return None
        return Takeover(owner, mark, state=state, calls=journal_calls(progress))
    user = await _user_message(store, owner, run, events[0])
    if user is None:
        return None
    return Takeover(owner, _opening_end(events), user=user)


def _opening_end(events: list[StoredEvent]) -> int:
    """The id of the last of the run's opening events (``run-start`` comes first)."""
    end = events[0].id
    for event in events:
        if event.type not in _OPENING:
            break
        end = event.id
    return end


def _step_end(events: list[StoredEvent], state: AgentState) -> int | None:
    """The id of the last ``tool-call`` event of the checkpoint's pending calls."""
    pending = set(state.pending_tool_calls)
    found = [
        e.id
        for e in events
        if e.type == "tool-call" and e.data.get("payload", {}).get("toolCallId") in pending
    ]
    return found[-1] if found else None


async def _user_message(
    store: Store, owner: Owner, run: RunRecord, start: StoredEvent
) -> AgentMessage | None:
    message_id = start.data.get("payload", {}).get("messageId")
    if not isinstance(message_id, str):
        return None
    found = await store.get_messages_by_ids(
        run.thread_id, [message_id], tenant_id=owner.tenant_id, resource_id=owner.user_id
    )
    return next((m for m in found if isinstance(m, AgentMessage)), None)
