"""A thread as LangGraph Server shows it: its state (``values``, ``next``, ``tasks``,
``interrupts``, a checkpoint), its history, and the ``Thread`` object — read from runyard's
thread, its event log (folded by ``ThreadValues``) and its pending confirmations.

A checkpoint is a position in the thread's log: ``checkpoint_id`` is the id of the last event it
covers, so ``get_state(checkpoint_id=...)`` folds the log up to there, and the history has one
state per run, at the run's last event, newest first. ``next`` is ``["tools"]`` while a run waits
for approval (its interrupts are the waiting questions), ``["model"]`` while one runs, else empty.

A fold replays the thread's finished runs from their snapshots' transcripts and parses only the
events after them (``read_transcripts``), so a read costs the thread's snapshots and its newest
runs, not its whole log; the values are the same dicts either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from runyard.faces.langgraph.resume import GRAPH_INTERRUPT
from runyard.faces.langgraph.thread_values import Message, ThreadValues, human_message
from runyard.messages import AgentMessage, TextPart, to_langchain_blocks
from runyard.protocol import (
    ConfirmationRequestPayload,
    RunFinishEvent,
    WireEvent,
    parse_event,
)
from runyard.service import (
    Owner,
    ServiceParts,
    ThreadStatus,
    ThreadTranscripts,
    read_transcripts,
)
from runyard.storage import StoredEvent, Thread

__all__ = [
    "METADATA_KEY",
    "folded",
    "human",
    "run_ends",
    "interrupt",
    "iso_time",
    "thread_body",
    "thread_state",
]

METADATA_KEY = "langgraph"
"""Where a thread's runyard metadata keeps what a LangGraph client set as its ``metadata``."""


def iso_time(epoch_ms: int) -> str:
    """An ISO 8601 time, as LangGraph Server writes them."""
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).isoformat()


def interrupt(question: ConfirmationRequestPayload) -> dict[str, Any]:
    """One waiting question as an ``Interrupt`` (its ``id`` the question's ``requestId``): what
    a LangGraph agent's graph passed to ``interrupt()``, as it passed it; any other question in
    the shape LangChain's ``HumanInTheLoopMiddleware`` interrupts with (``action_requests``,
    ``review_configs``), runyard's own question beside them under ``runyard``."""
    args = question.args
    if question.tool_name == GRAPH_INTERRUPT and (question.input_type or "") == "text":
        return {
            "value": args["value"] if list(args) == ["value"] else args,
            "id": question.request_id,
        }
    batch = args.get("actions") if question.tool_name == GRAPH_INTERRUPT else None
    actions = (
        batch
        if isinstance(batch, list)
        else [{"name": question.tool_name, "args": args, "description": question.message}]
    )
    kind = question.input_type or "approval"
    decisions = ["approve", "edit", "reject"] if kind == "approval" else ["respond", "reject"]
    value = {
        "action_requests": actions,
        "review_configs": [
            {"action_name": action.get("name"), "allowed_decisions": decisions}
            for action in actions
        ],
        "runyard": question.model_dump(mode="json"),
    }
    return {"value": value, "id": question.request_id}


async def folded(
    parts: ServiceParts, owner: Owner, thread: Thread, upto: int | None = None
) -> tuple[ThreadValues, int]:
    """The thread's log (up to event ``upto``, None: all of it) folded, and the id of the last
    event it covers (0: none). The fold knows the user message of every snapshotted run and of
    every run of the log it read, so a stream folding on from ``upto`` (the log's end when it
    started) has those after it too."""
    log = await _log(parts, owner, thread, upto)
    values = ThreadValues(log.users)
    for run in log.transcripts.runs:
        for entry in run.entries:
            values.replay(run.run_id, entry)
    for _, event in log.events:
        values.apply(event)
    return values, log.last


async def run_ends(
    parts: ServiceParts, owner: Owner, thread: Thread
) -> list[tuple[int, dict[str, Any]]]:
    """The thread's values at the end of each run and at the end of its log, with the log id of
    each, oldest first: its history, folded once."""
    log = await _log(parts, owner, thread)
    values = ThreadValues(log.users)
    ends: list[tuple[int, dict[str, Any]]] = []
    for run in log.transcripts.runs:
        for entry in run.entries:
            values.replay(run.run_id, entry)
            if entry["kind"] == "finish":
                ends.append((entry["eventId"], values.values()))
    for event_id, event in log.events:
        values.apply(event)
        if isinstance(event, RunFinishEvent):
            ends.append((event_id, values.values()))  # a run's messages change no more
    if log.last and (not ends or ends[-1][0] != log.last):
        ends.append((log.last, values.values()))
    return ends


@dataclass(frozen=True, slots=True)
class _Log:
    """A thread's log up to a position: its finished runs' transcripts, then its events after
    them (those a takeover said again left out), and the user message of each run, by id."""

    transcripts: ThreadTranscripts
    events: list[tuple[int, WireEvent]]
    users: dict[str, Message]

    @property
    def last(self) -> int:
        """The id of the last event it covers (0: none)."""
        return self.events[-1][0] if self.events else self.transcripts.mark


async def _log(parts: ServiceParts, owner: Owner, thread: Thread, upto: int | None = None) -> _Log:
    """The thread's log up to event ``upto`` (None: all of it): its finished runs from their
    snapshots' transcripts, only the events after them read and parsed; and the user message of
    each run ``read_transcripts`` shows, those past ``upto`` too (a stream folds on)."""
    transcripts = await read_transcripts(parts.store, thread.id, upto)
    kept = _kept(transcripts.log)
    events = [(e.id, parse_event(e.data)) for e in kept if upto is None or e.id <= upto]
    found = await parts.store.get_messages_by_ids(
        thread.id, transcripts.message_ids, tenant_id=owner.tenant_id, resource_id=owner.user_id
    )
    users = {m.id: human(m) for m in found if isinstance(m, AgentMessage)}
    return _Log(transcripts, events, users)


def _kept(log: Sequence[StoredEvent]) -> list[StoredEvent]:
    """The log without the events a takeover's ``run-resumed`` superseded (said again after it)."""
    dropped: set[int] = set()
    for stored in log:
        if stored.type == "run-resumed":
            after = int(stored.data["payload"]["afterEventId"])
            dropped |= {e.id for e in log if after < e.id < stored.id and e.run_id == stored.run_id}
    return [e for e in log if e.id not in dropped]


def human(message: AgentMessage) -> Message:
    """A stored user message as a ``HumanMessage`` dict: its text, or its LangChain content
    blocks when it has more than text."""
    if all(isinstance(p, TextPart) for p in message.parts):
        return human_message(message.id, message.text)
    return human_message(message.id, to_langchain_blocks(message.parts))


def thread_state(
    thread_id: str,
    values: dict[str, Any],
    checkpoint_id: int,
    status: ThreadStatus | None,
    questions: Sequence[ConfirmationRequestPayload],
) -> dict[str, Any]:
    """A ``ThreadState`` at ``checkpoint_id``; ``status`` and ``questions`` are the thread's now
    (None and none: a past checkpoint)."""
    interrupts = [interrupt(q) for q in questions]
    waiting = status is not None and status.is_suspended
    running = status is not None and status.has_active_run
    tasks = [
        {
            "id": q.request_id,
            "name": "tools",
            "path": ["__pregel_pull", "tools"],
            "error": None,
            "interrupts": [interrupt(q)],
            "checkpoint": None,
            "state": None,
            "result": None,
        }
        for q in (questions if waiting else ())
    ]
    return {
        "values": values,
        "next": ["tools"] if waiting else ["model"] if running else [],
        "tasks": tasks,
        "checkpoint": _checkpoint(thread_id, checkpoint_id),
        "parent_checkpoint": None,
        "metadata": {"source": "loop", "step": checkpoint_id},
        "created_at": None,
        "checkpoint_id": str(checkpoint_id),
        "parent_checkpoint_id": None,
        "interrupts": interrupts if waiting else [],
    }


def _checkpoint(thread_id: str, checkpoint_id: int) -> dict[str, Any]:
    return {
        "thread_id": thread_id,
        "checkpoint_ns": "",
        "checkpoint_id": str(checkpoint_id),
        "checkpoint_map": None,
    }


def thread_body(
    thread_id: str,
    thread: Thread,
    status: ThreadStatus,
    values: ThreadValues | None = None,
    questions: Sequence[ConfirmationRequestPayload] = (),
) -> dict[str, Any]:
    """A ``Thread``: its id as the client chose it, times, metadata, ``status`` (``busy`` while
    a run runs, ``interrupted`` while one waits, ``error`` when its last run failed — known when
    its ``values`` are read —, else ``idle``), and ``values`` when read."""
    state = _thread_status(status, failed=values is not None and values.failed)
    metadata = thread.metadata.get(METADATA_KEY)
    interrupts = [interrupt(q) for q in questions] if status.is_suspended else []
    return {
        "thread_id": thread_id,
        "created_at": iso_time(thread.created_at),
        "updated_at": iso_time(thread.updated_at),
        "state_updated_at": iso_time(thread.updated_at),
        "metadata": metadata if isinstance(metadata, dict) else {},
        "status": state,
        "values": values.values() if values is not None else None,
        "interrupts": {q["id"]: [q] for q in interrupts},
    }


def _thread_status(status: ThreadStatus, *, failed: bool) -> str:
    if status.is_suspended:
        return "interrupted"
    if status.has_active_run:
        return "busy"
    return "error" if failed else "idle"
