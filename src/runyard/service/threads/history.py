"""A thread's history by run: agent-tree snapshots of finished runs, the log for the rest.

After each ``run-finish`` the run's events are folded into its agent tree once
(``AgentTreeBuilder``) and stored as a snapshot (``RunSnapshots``) with what its assistant
message shows and its transcript (``transcript.py``, what a thread's state is replayed from);
``RunFinisher`` does it as the last step of every ending. A history read takes a page of
snapshots and folds only the events after the newest of them — a run still in progress,
or one whose snapshot was not written (its process died in between) — so it never folds the
whole log.

Snapshots cover a prefix of the log: they are written in log order, from the newest snapshot on,
and only for the finished runs that lead what follows it (a run without ``run-finish`` stops
them). A thread from before snapshots existed, or one whose snapshot writing failed, is caught
up by the next write or read, which stores what it folded; both fold the same events into the
same documents, so racing writers do no harm.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from runyard.messages import AgentMessage, whole_blocks
from runyard.protocol import AgentTreeBuilder, RunFinishPayload, WireEvent, parse_event
from runyard.service.owner import Owner
from runyard.service.threads.transcript import TranscriptEntry, TranscriptFold
from runyard.storage import (
    Conversations,
    EventLogStore,
    RunSnapshot,
    RunSnapshots,
    StoredEvent,
    Thread,
)

__all__ = [
    "HistoryPage",
    "HistoryStore",
    "LogFold",
    "RunFold",
    "RunHistory",
    "RunRows",
    "catch_up",
    "fold_runs",
    "store_snapshots",
]

logger = logging.getLogger(__name__)


class HistoryStore(EventLogStore, RunSnapshots, Protocol):
    """The storage parts a thread's history is made from."""


@dataclass(frozen=True, slots=True)
class RunRows:
    """One run as the history shows it: its user message (by id) and its assistant message."""

    run_id: str
    first_event_id: int
    last_event_id: int
    message_id: str | None
    assistant: dict[str, Any]
    finished: bool
    transcript: list[TranscriptEntry] | None
    """None: a snapshot written before transcripts were kept."""

    def snapshot(self, thread_id: str) -> RunSnapshot:
        """The run's snapshot document."""
        data = {
            "messageId": self.message_id,
            "assistant": self.assistant,
            "transcript": self.transcript,
        }
        created = int(self.assistant["createdAt"])
        return RunSnapshot(
            thread_id, self.run_id, self.first_event_id, self.last_event_id, data, created
        )

    @classmethod
    def of(cls, snapshot: RunSnapshot) -> RunRows:
        """The run a snapshot holds."""
        data = snapshot.data
        return cls(
            snapshot.run_id,
            snapshot.first_event_id,
            snapshot.last_event_id,
            data.get("messageId"),
            data["assistant"],
            finished=True,
            transcript=data.get("transcript"),
        )


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """Messages of whole runs, oldest first; ``next_cursor`` pages to older runs (None: none)."""

    messages: list[dict[str, Any]]
    next_event_id: int
    next_cursor: int | None


class _Fold:
    """One run's events being folded."""

    def __init__(self, first: StoredEvent) -> None:
        self.first = first
        self.last = first
        self.tree = AgentTreeBuilder()
        self.transcript = TranscriptFold()
        self.message_id: str | None = None
        self.chosen: dict[str, str] | None = None
        self.finish: RunFinishPayload | None = None

    def apply(self, stored: StoredEvent, event: WireEvent | None) -> None:
        event = parse_event(stored.data) if event is None else event
        self.last = stored
        self.tree.apply(event, stored.id)
        self.transcript.apply(event, stored.id)
        if event.type == "run-start":
            self.message_id = event.payload.message_id
            if event.payload.agent_id is not None:
                self.chosen = {"id": event.payload.agent_id}
                if event.payload.version is not None:
                    self.chosen["version"] = event.payload.version
        elif event.type == "run-finish":
            self.finish = event.payload

    def rows(self) -> RunRows:
        run_id = self.first.run_id or ""
        tree = self.tree.tree()
        assistant: dict[str, Any] = {
            "id": run_id,
            "runId": run_id,
            "role": "assistant",
            "createdAt": self.first.created_at,
            "content": tree.text_content,
            "reasoning": tree.reasoning,
            "isStreaming": self.finish is None,
            "agentTree": tree.model_dump(mode="json"),
        }
        if tree.blocks:
            assistant["blocks"] = [block.model_dump(mode="json") for block in tree.blocks]
        if self.chosen is not None:
            assistant["agent"] = self.chosen
        if self.finish is not None and self.finish.usage is not None:
            assistant["usage"] = self.finish.usage.model_dump(mode="json")
        finished = self.finish is not None
        transcript = self.transcript.entries()
        first, last = self.first.id, self.last.id
        return RunRows(run_id, first, last, self.message_id, assistant, finished, transcript)


class LogFold:
    """A stretch of a thread's log folded run by run, as its events come (``add``)."""

    def __init__(self) -> None:
        self._folds: dict[str | None, _Fold] = {}

    def add(self, log: Iterable[tuple[StoredEvent, WireEvent | None]]) -> None:
        """Fold ``log``, the events right after those added before, each with the event its
        data holds when it is at hand (None: parsed from the data)."""
        for stored, event in log:
            fold = self._folds.get(stored.run_id)
            if fold is None:
                fold = self._folds[stored.run_id] = _Fold(stored)
            fold.apply(stored, event)

    def runs(self) -> list[RunRows]:
        """Each run folded so far, in log order."""
        return [fold.rows() for fold in self._folds.values()]


class RunFold:
    """One run's events folded as its writer stores them, for the run's snapshot at its end
    (``RunFinisher``), so the ending need not read them back from the log.

    Sound only when the writer's first event is the first event after the thread's snapshots
    (the run's start saw the log and its snapshots end at the same id): then what the writer
    stored is all the snapshot covers, and storing it keeps the snapshots a prefix of the log.
    """

    def __init__(self, thread_id: str, run_id: str) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self._fold = LogFold()
        self._last_id = 0
        self._broken = False

    def add(self, log: Sequence[StoredEvent], events: Sequence[WireEvent | None] = ()) -> None:
        """Fold a batch the writer stored (once: a batch folded already is skipped); a failure
        only costs the ending a read of the log. ``events``: the events the rows' data was
        made from, one per row, where the writer has them (``EventWriter.watch``), so they are
        not parsed back from it."""
        try:
            known = events or [None] * len(log)
            self._fold.add((e, k) for e, k in zip(log, known, strict=True) if e.id > self._last_id)
            self._last_id = max([self._last_id, *(e.id for e in log)])
        except Exception:
            logger.exception(
                "run %s: folding its events failed; its ending reads them", self.run_id
            )
            self._broken = True

    def snapshot(self) -> RunSnapshot | None:
        """The run's snapshot, once it finished; None when its events cannot make it alone."""
        runs = [] if self._broken else self._fold.runs()
        if len(runs) != 1 or runs[0].run_id != self.run_id or not runs[0].finished:
            return None
        return runs[0].snapshot(self.thread_id)


def fold_runs(log: Sequence[StoredEvent]) -> list[RunRows]:
    """Each run of a stretch of a thread's log, folded into its rows, in log order."""
    fold = LogFold()
    fold.add((stored, None) for stored in log)
    return fold.runs()


async def _save_finished(store: RunSnapshots, thread_id: str, runs: Sequence[RunRows]) -> None:
    """Store the snapshots of the finished runs that lead ``runs`` (the prefix stays whole)."""
    done = list(itertools.takewhile(lambda run: run.finished, runs))
    if done:
        await store.save_run_snapshots(thread_id, [run.snapshot(thread_id) for run in done])


async def catch_up(store: RunSnapshots, thread_id: str, runs: Sequence[RunRows]) -> None:
    """Store what a read folded: the snapshots of the finished runs that lead ``runs`` (the log
    after the thread's snapshots), so the next read need not fold them; a failure is only logged,
    and a later read retries."""
    try:
        await _save_finished(store, thread_id, runs)
    except Exception:
        logger.exception("thread %s: storing run snapshots failed; a later read retries", thread_id)


async def store_snapshots(store: HistoryStore, thread_id: str) -> None:
    """Snapshot the thread's finished runs that have none yet: after a ``run-finish``, that run."""
    after = await store.last_snapshot_event_id(thread_id)
    await _save_finished(
        store, thread_id, fold_runs(await store.read_events(thread_id, after_id=after))
    )


class RunHistory:
    """Pages of a thread's history, newest runs first, each page in log order."""

    def __init__(self, store: HistoryStore, conversations: Conversations) -> None:
        self.store = store
        self.conversations = conversations

    async def page(
        self, thread: Thread, owner: Owner, *, limit: int, cursor: int | None = None
    ) -> HistoryPage:
        """The newest whole runs before ``cursor`` (a ``next_cursor``; None: the newest runs)
        with at most ``limit`` messages (one run more only when a single run has more), and the
        ``nextEventId`` of the log they were read at."""
        next_event_id = await self.store.last_event_id(thread.id) + 1
        bound = next_event_id if cursor is None else min(cursor, next_event_id)
        runs = await self._runs_before(thread.id, bound, limit + 1)
        chosen = _newest_fitting(runs, limit)
        users = await self._users(thread, owner, chosen)
        messages: list[dict[str, Any]] = []
        for run in chosen:
            user = users.get(run.message_id or "")
            if user is not None:
                messages.append(_user_row(user, run.run_id))
            messages.append(run.assistant)
        older = chosen[0].first_event_id if chosen and len(chosen) < len(runs) else None
        return HistoryPage(messages, next_event_id, older)

    async def _runs_before(self, thread_id: str, bound: int, count: int) -> list[RunRows]:
        """At least the newest ``count`` runs that end before event ``bound`` (all when fewer):
        snapshots, then the runs of the log after the newest of them, folded."""
        snapshots = await self.store.read_run_snapshots(
            thread_id, before_event_id=bound, limit=count
        )
        mark = snapshots[-1].last_event_id if snapshots else 0
        # A cursor at or below the first event (``?cursor=0``) leaves nothing to read, and a
        # negative LIMIT is an error on PostgreSQL and "all but the last" on a list.
        before = max(bound - 1 - mark, 0)
        tail = (
            await self.store.read_events(thread_id, after_id=mark, limit=before) if before else []
        )
        folded = fold_runs(tail)
        await catch_up(self.store, thread_id, folded)
        return [RunRows.of(s) for s in snapshots] + folded

    async def _users(
        self, thread: Thread, owner: Owner, runs: Sequence[RunRows]
    ) -> dict[str, AgentMessage]:
        ids = [run.message_id for run in runs if run.message_id]
        found = await self.conversations.get_messages_by_ids(
            thread.id, ids, tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
        return {m.id: m for m in found if isinstance(m, AgentMessage)}


def _newest_fitting(runs: Sequence[RunRows], limit: int) -> list[RunRows]:
    """The newest runs whose messages fit in ``limit`` (at least one), oldest first."""
    chosen: list[RunRows] = []
    count = 0
    for run in reversed(runs):
        size = 2 if run.message_id else 1
        if chosen and count + size > limit:
            break
        chosen.append(run)
        count += size
    return chosen[::-1]


def _user_row(message: AgentMessage, run_id: str) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": message.id,
        "runId": run_id,
        "role": "user",
        "createdAt": message.created_at,
        "content": message.text,
        "reasoning": "",
        "isStreaming": False,
    }
    if blocks := whole_blocks(message.parts):
        row["blocks"] = [block.model_dump(mode="json") for block in blocks]
    return row
