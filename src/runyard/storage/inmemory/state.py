"""The dictionaries behind ``InMemoryStore`` and the ownership checks every part shares.

Every operation runs without awaiting in between, so each one is atomic on the event loop,
which is what the SQL backends get from transactions. Returned data is deep-copied so
callers cannot mutate stored state, as with a real database.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from runyard.ids import now_ms
from runyard.storage.errors import (
    EventIdConflict,
    RunNotFound,
    StaleLease,
    ThreadOwnershipError,
)
from runyard.storage.files.file_bytes import FileBytes, MemoryFileBytes
from runyard.storage.inmemory.json_copy import entry_copy, json_copy, thread_copy
from runyard.storage.parts import Message
from runyard.storage.records import (
    OPEN_RUN_STATUSES,
    AgentActivation,
    AgentVersion,
    ApiKey,
    Confirmation,
    FileRecord,
    ObservationCursor,
    Plan,
    RunRecord,
    RunSnapshot,
    StoredEvent,
    Thread,
    ToolCallEntry,
    WorkingMemory,
)
from runyard.storage.records import Observation as ObservationRow

__all__ = ["MemoryState"]


class RunTable(dict[str, RunRecord]):
    """Runs by id, each thread's open run also by thread: a run's start asks whether its thread
    has one, and a scan of every run ever stored made that cost grow with the store's age."""

    def __init__(self) -> None:
        super().__init__()
        self.open_by_thread: dict[str, str] = {}

    def __setitem__(self, run_id: str, run: RunRecord) -> None:
        super().__setitem__(run_id, run)
        if run.is_open:
            self.open_by_thread[run.thread_id] = run_id
        elif self.open_by_thread.get(run.thread_id) == run_id:
            del self.open_by_thread[run.thread_id]

    def open_runs(self) -> list[RunRecord]:
        return [self[run_id] for run_id in self.open_by_thread.values()]

    def open_on(self, thread_id: str) -> RunRecord | None:
        """The thread's open run, if it has one."""
        run_id = self.open_by_thread.get(thread_id)
        return None if run_id is None else self[run_id]


class MemoryState:
    """Shared state of the in-memory store's parts."""

    def __init__(self, file_bytes: FileBytes | None = None) -> None:
        self._seq = itertools.count(1)
        self._threads: dict[str, Thread] = {}
        # thread id -> message id -> (insertion seq, message)
        self._messages: dict[str, dict[str, tuple[int, Message]]] = {}
        # (tenant, resource, thread id or "") -> document
        self._working: dict[tuple[str, str, str], WorkingMemory] = {}
        self._observations: dict[str, dict[str, tuple[int, ObservationRow]]] = {}
        self._cursors: dict[str, ObservationCursor] = {}
        self._plans: dict[str, Plan] = {}
        # thread id -> message id -> (vector, text, model)
        self._embeddings: dict[str, dict[str, tuple[tuple[float, ...], str, str]]] = {}
        self._runs = RunTable()
        self._events: dict[str, dict[int, StoredEvent]] = {}
        # thread id -> run id -> snapshot
        self._snapshots: dict[str, dict[str, RunSnapshot]] = {}
        self._confirmations: dict[str, Confirmation] = {}
        self._checkpoints: dict[str, tuple[dict[str, Any], int | None]] = {}
        # run id -> progress checkpoint; run id -> tool call id -> ledger row
        self._progress: dict[str, dict[str, Any]] = {}
        self._tool_calls: dict[str, dict[str, ToolCallEntry]] = {}
        self._api_keys: dict[str, ApiKey] = {}
        self._agent_versions: dict[str, AgentVersion] = {}
        # (tenant or "" for shared, agent id) -> activation
        self._activations: dict[tuple[str, str], AgentActivation] = {}
        self._catalog_revision = 0
        # key -> epoch second -> requests counted in it
        self._rate_counters: dict[str, dict[int, int]] = {}
        # file id -> (metadata, finished); file id -> the threads that reference it
        self._files: dict[str, tuple[FileRecord, bool]] = {}
        self._file_references: dict[str, set[str]] = {}
        self._file_bytes: FileBytes = file_bytes or MemoryFileBytes()

    def _drop_thread_files(self, thread_id: str) -> list[str]:
        """Drop the thread's file references, and the rows of the files no other thread
        references; their ids, whose bytes the caller deletes."""
        orphans = []
        for file_id, threads in list(self._file_references.items()):
            if thread_id in threads:
                threads.discard(thread_id)
                if not threads:
                    orphans.append(file_id)
                    del self._file_references[file_id]
                    self._files.pop(file_id, None)
        return orphans

    def _fence(self, run_id: str, epoch: int) -> None:
        """Raise unless the run is open at ``epoch`` (``StaleLease``; ``RunNotFound``)."""
        run = self._runs.get(run_id)
        if run is None:
            raise RunNotFound(run_id)
        if run.status not in OPEN_RUN_STATUSES or run.lease_epoch != epoch:
            raise StaleLease(
                f"run {run_id!r} is {run.status} at lease epoch {run.lease_epoch}, not {epoch}"
            )

    def _keep_journal(
        self, run_id: str, calls: Sequence[ToolCallEntry], state: dict[str, Any] | None
    ) -> None:
        """The run's progress checkpoint (when ``state`` is given) and ledger rows: a started
        call only when it has none, a settled one always."""
        if state is not None:
            self._progress[run_id] = json_copy(state)
        known = self._tool_calls.setdefault(run_id, {})
        for call in calls:
            if call.state == "settled" or call.tool_call_id not in known:
                known[call.tool_call_id] = entry_copy(call)

    def _owned(self, thread_id: str, tenant_id: str, resource_id: str) -> bool:
        thread = self._threads.get(thread_id)
        return (
            thread is not None
            and thread.tenant_id == tenant_id
            and thread.resource_id == resource_id
        )

    def _claim(self, thread_id: str, tenant_id: str, resource_id: str) -> Thread:
        """The caller's thread, created when missing; another owner's raises."""
        thread = self._threads.get(thread_id)
        if thread is None:
            now = now_ms()
            thread = Thread(thread_id, tenant_id, resource_id, None, {}, now, now)
            self._threads[thread_id] = thread
        elif (thread.tenant_id, thread.resource_id) != (tenant_id, resource_id):
            raise ThreadOwnershipError(f"thread {thread_id!r} belongs to another owner")
        return thread

    def _save_thread(
        self,
        thread_id: str,
        tenant_id: str,
        resource_id: str,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        """``Conversations.save_thread``, without a pause: the caller's thread, claimed and
        changed."""
        thread = self._claim(thread_id, tenant_id, resource_id)
        thread = replace(
            thread,
            title=thread.title if title is None else title,
            metadata=thread.metadata if metadata is None else json_copy(metadata),
            updated_at=max(now_ms(), thread.updated_at),
        )
        self._threads[thread_id] = thread
        return thread_copy(thread)

    def _save_messages(
        self, thread_id: str, messages: Sequence[Message], tenant_id: str, resource_id: str
    ) -> None:
        """``Conversations.save_messages``, without a pause."""
        self._claim(thread_id, tenant_id, resource_id)
        rows = self._messages.setdefault(thread_id, {})
        for message in messages:
            seq = rows[message.id][0] if message.id in rows else next(self._seq)
            rows[message.id] = (seq, message.model_copy(deep=True))
        self._touch(thread_id)

    def _check_new_events(self, thread_id: str, events: Sequence[StoredEvent]) -> None:
        """``EventIdConflict`` when a batch of the thread's events reuses an id."""
        log = self._events.get(thread_id, {})
        ids = [event.id for event in events]
        if len(set(ids)) != len(ids) or any(i in log for i in ids):
            raise EventIdConflict(f"event id reused in thread {thread_id!r}")

    def _keep_event(self, thread_id: str, event: StoredEvent) -> None:
        log = self._events.setdefault(thread_id, {})
        log[event.id] = replace(event, thread_id=thread_id, data=json_copy(event.data))

    def _save_snapshots(self, thread_id: str, snapshots: Sequence[RunSnapshot]) -> None:
        """``RunSnapshots.save_run_snapshots``, without a pause."""
        kept = self._snapshots.setdefault(thread_id, {})
        for snapshot in snapshots:
            kept[snapshot.run_id] = replace(
                snapshot, thread_id=thread_id, data=json_copy(snapshot.data)
            )

    def _touch(self, thread_id: str) -> None:
        thread = self._threads[thread_id]
        self._threads[thread_id] = replace(thread, updated_at=max(now_ms(), thread.updated_at))
