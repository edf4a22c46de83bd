"""The ``Store`` protocol: everything runyard persists, behind one async seam.

Every backend (in-memory, SQLite, PostgreSQL) passes the same contract suite in
``tests/storage``. Ownership rule: thread-scoped operations take ``tenant_id`` and
``resource_id``; reads of a thread owned by someone else find nothing, and writes to it
raise ``ThreadOwnershipError`` without changing anything. Writes to a thread that does not
exist yet create it for the caller. Runs, the event log, confirmations and checkpoints are
keyed by run or thread id only: the service checks ownership before it touches them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from runyard.messages import AgentMessage, CustomMessage
from runyard.storage.records import (
    Confirmation,
    EmbeddingEntry,
    EmbeddingHit,
    MemoryScope,
    MessageCursor,
    Observation,
    ObservationCursor,
    Plan,
    RunRecord,
    RunStatus,
    StoredEvent,
    Thread,
    WorkingMemory,
)

__all__ = ["Backend", "Message", "Store", "VectorSearch"]

Message = AgentMessage | CustomMessage
Backend = Literal["memory", "sqlite", "postgresql"]
VectorSearch = Literal["sqlite-vec", "pgvector", "exact"]


@runtime_checkable
class Store(Protocol):
    """Threads, messages, memory tiers, runs, the event log, confirmations and checkpoints."""

    @property
    def backend(self) -> Backend:
        """Which implementation this is."""
        ...

    @property
    def vector_search(self) -> VectorSearch:
        """How ``query_embeddings`` runs: a native index, or exact cosine in Python."""
        ...

    async def close(self) -> None:
        """Release connections; the store is unusable afterwards."""
        ...

    # -- threads ---------------------------------------------------------------------------
    async def save_thread(
        self,
        thread_id: str,
        *,
        tenant_id: str,
        resource_id: str,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        """Create the thread, or update it (None keeps title/metadata). Another owner's thread
        raises ``ThreadOwnershipError`` and is left untouched."""
        ...

    async def get_thread(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> Thread | None:
        """The thread if it exists and belongs to this tenant and resource."""
        ...

    async def list_threads(
        self, *, tenant_id: str, resource_id: str, limit: int | None = None
    ) -> list[Thread]:
        """The owner's threads, most recently updated first."""
        ...

    async def delete_thread(self, thread_id: str, *, tenant_id: str, resource_id: str) -> bool:
        """Delete the thread with its messages, events, plan, observations, cursor, embeddings
        and thread-scoped working memory. False when there was nothing of this owner's."""
        ...

    async def set_thread_title(
        self, thread_id: str, title: str, *, tenant_id: str, resource_id: str
    ) -> bool:
        """Set the title; False when the owner has no such thread."""
        ...

    # -- messages --------------------------------------------------------------------------
    async def save_messages(
        self, thread_id: str, messages: Sequence[Message], *, tenant_id: str, resource_id: str
    ) -> None:
        """Upsert by message id: a known id is replaced in place (keeping its insertion
        position), a new one appended. Creates the thread when missing."""
        ...

    async def get_messages(
        self,
        thread_id: str,
        *,
        tenant_id: str,
        resource_id: str,
        limit: int | None = None,
        before: int | None = None,
        after: MessageCursor | None = None,
    ) -> list[Message]:
        """Messages ascending by ``created_at`` then insertion order. ``before`` keeps those with
        ``created_at < before``; ``after`` keeps those strictly after the cursor's message;
        ``limit`` keeps the last ``limit`` of what remains."""
        ...

    async def get_messages_by_ids(
        self, thread_id: str, message_ids: Sequence[str], *, tenant_id: str, resource_id: str
    ) -> list[Message]:
        """The named messages of this thread that exist, in thread order."""
        ...

    async def count_messages(self, thread_id: str, *, tenant_id: str, resource_id: str) -> int:
        """How many messages the thread holds (0 for another owner's thread)."""
        ...

    # -- working memory --------------------------------------------------------------------
    async def get_working_memory(
        self,
        *,
        tenant_id: str,
        resource_id: str,
        scope: MemoryScope,
        thread_id: str | None = None,
    ) -> WorkingMemory | None:
        """The document for the resource, or for the thread when ``scope="thread"``."""
        ...

    async def save_working_memory(
        self,
        content: str,
        *,
        tenant_id: str,
        resource_id: str,
        scope: MemoryScope,
        thread_id: str | None = None,
    ) -> WorkingMemory:
        """Replace the document; thread scope needs ``thread_id`` and creates the thread if missing."""
        ...

    # -- observations ----------------------------------------------------------------------
    async def append_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        """Add observations to the thread's log (ids are the caller's; a repeated id replaces)."""
        ...

    async def list_observations(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> list[Observation]:
        """The thread's observations, oldest first (``created_at``, then insertion order)."""
        ...

    async def replace_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        """Atomically swap the thread's whole observation log (what reflection does)."""
        ...

    async def get_observation_cursor(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> ObservationCursor | None:
        """The last message the observer has read, if any."""
        ...

    async def set_observation_cursor(
        self, thread_id: str, cursor: MessageCursor, *, tenant_id: str, resource_id: str
    ) -> ObservationCursor:
        """Move the observer's cursor."""
        ...

    # -- plans -----------------------------------------------------------------------------
    async def get_plan(self, thread_id: str, *, tenant_id: str, resource_id: str) -> Plan | None:
        """The thread's current plan."""
        ...

    async def save_plan(
        self, thread_id: str, data: dict[str, Any], *, tenant_id: str, resource_id: str
    ) -> Plan:
        """Replace the thread's plan."""
        ...

    # -- embeddings ------------------------------------------------------------------------
    async def save_embeddings(
        self,
        thread_id: str,
        entries: Sequence[EmbeddingEntry],
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        """Store (or replace, by message id) message embeddings of the thread."""
        ...

    async def query_embeddings(
        self,
        vector: Sequence[float],
        *,
        tenant_id: str,
        resource_id: str,
        thread_id: str | None = None,
        scope: MemoryScope = "thread",
        top_k: int = 5,
    ) -> list[EmbeddingHit]:
        """The ``top_k`` most cosine-similar stored vectors of the same length, best first,
        within the thread (``scope="thread"``, needs ``thread_id``) or all of the resource's
        threads — never another user's."""
        ...

    # -- runs and leases --------------------------------------------------------------------
    async def open_run(
        self,
        run_id: str,
        *,
        thread_id: str,
        tenant_id: str,
        owner: str,
        status: RunStatus = "running",
        lease_until: int | None = None,
    ) -> RunRecord:
        """Insert an open run at lease epoch 1, leased to ``owner`` until ``lease_until`` (epoch
        ms; default 30 s from now). ``RunConflict`` if the thread already has an open run
        (decided by the database, so of racing callers exactly one wins; a run that closes while
        the insert races it is no conflict). A run id used before raises ``StorageError``."""
        ...

    async def get_run(self, run_id: str) -> RunRecord | None:
        """The run, open or closed."""
        ...

    async def get_active_run(self, thread_id: str) -> RunRecord | None:
        """The thread's open run, if any."""
        ...

    async def list_open_runs(self, *, tenant_id: str | None = None) -> list[RunRecord]:
        """Every open run (of one tenant when given), oldest first."""
        ...

    async def update_run_status(self, run_id: str, status: RunStatus, *, epoch: int) -> RunRecord:
        """Move an open run between open statuses (running/suspended). ``StaleLease`` when
        ``epoch`` is not the current one or the run is closed; ``RunNotFound`` when unknown."""
        ...

    async def close_run(
        self, run_id: str, status: RunStatus, *, epoch: int, reason: str | None = None
    ) -> RunRecord:
        """Finish an open run with a final status. ``StaleLease``/``RunNotFound`` as above."""
        ...

    async def take_over(
        self, run_id: str, new_owner: str, *, lease_until: int | None = None
    ) -> RunRecord:
        """Give an open run's lease to ``new_owner`` with the next epoch, until ``lease_until``
        (default 30 s from now); writes carrying the old epoch are rejected from now on.
        ``StaleLease`` if the run is closed."""
        ...

    async def renew_leases(self, owner: str, until: int) -> list[str]:
        """Set the lease expiry of every open run ``owner`` holds to ``until``, in one statement;
        the ids of those runs. A run ``owner`` drives that is missing was taken over (or closed)."""
        ...

    async def list_expired_runs(self, now: int) -> list[RunRecord]:
        """Running runs whose lease ended at or before ``now``, oldest first. A suspended run
        has no driver to lose, so it never counts as expired."""
        ...

    async def take_over_expired(
        self, run_id: str, new_owner: str, *, now: int, lease_until: int
    ) -> RunRecord | None:
        """``take_over``, but only while the run is running with a lease that ended at or before
        ``now`` — one conditional update, so of racing sweepers exactly one gets the run. None
        when it was renewed, taken or closed meanwhile."""
        ...

    # -- event log -------------------------------------------------------------------------
    async def append_events(self, thread_id: str, events: Sequence[StoredEvent]) -> None:
        """Insert the batch in one transaction. Ids come from the writer and are unique per
        thread: a reused id raises ``EventIdConflict`` and nothing of the batch is stored."""
        ...

    async def read_events(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``id > after_id``, ascending, at most ``limit``."""
        ...

    async def read_event_json(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[tuple[int, str]]:
        """Like ``read_events``, as ``(id, JSON text of data)``: replay sends stored text as it
        is, without decoding and re-encoding every event."""
        ...

    async def last_event_id(self, thread_id: str) -> int:
        """The highest event id of the thread, 0 when the log is empty."""
        ...

    # -- confirmations ---------------------------------------------------------------------
    async def create_confirmation(
        self,
        request_id: str,
        *,
        thread_id: str,
        run_id: str,
        tool_call_id: str,
        payload: dict[str, Any],
    ) -> Confirmation:
        """Record a pending question."""
        ...

    async def get_confirmation(self, request_id: str) -> Confirmation | None:
        """The confirmation, pending or answered."""
        ...

    async def answer_confirmation(self, request_id: str, answer: dict[str, Any]) -> bool:
        """Pending -> answered, exactly once: True for the one caller that answered it, False
        when it was already answered or does not exist."""
        ...

    async def list_pending_confirmations(self, thread_id: str) -> list[Confirmation]:
        """The thread's unanswered confirmations, oldest first."""
        ...

    # -- checkpoints -----------------------------------------------------------------------
    async def save_checkpoint(
        self, key: str, state: dict[str, Any], *, expires_at: int | None = None
    ) -> None:
        """Write (overwrite) a checkpoint; ``expires_at`` in epoch ms, None = never."""
        ...

    async def load_checkpoint(self, key: str) -> dict[str, Any] | None:
        """The checkpoint's state, or None when missing or expired."""
        ...

    async def delete_checkpoint(self, key: str) -> None:
        """Forget the checkpoint (no error when missing)."""
        ...

    async def sweep_expired_checkpoints(self, now: int) -> int:
        """Delete checkpoints with ``expires_at <= now``; returns how many."""
        ...
