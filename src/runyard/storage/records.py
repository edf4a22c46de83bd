"""The rows a ``Store`` hands out: plain frozen dataclasses, owned by storage, free of SQL."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "OPEN_RUN_STATUSES",
    "ApiKey",
    "ApiKeyRole",
    "AgentActivation",
    "AgentVersion",
    "AgentVersionOrigin",
    "Confirmation",
    "ConfirmationStatus",
    "EmbeddingEntry",
    "EmbeddingHit",
    "FileRecord",
    "NewFile",
    "MemoryScope",
    "MessageCursor",
    "Observation",
    "ObservationCursor",
    "Plan",
    "RunQuota",
    "RunProgress",
    "LedgerWrite",
    "RunRecord",
    "RunSnapshot",
    "RunStart",
    "QueuedWork",
    "RunStatus",
    "StoredEvent",
    "Thread",
    "ToolCallEntry",
    "ToolCallState",
    "WorkingMemory",
]

RunStatus = Literal[
    "queued", "running", "suspended", "completed", "failed", "cancelled", "interrupted"
]
"""``queued``, ``running`` and ``suspended`` are open; every other status is final. A queued run
waits for a worker replica to claim it (``RunQueue``)."""

OPEN_RUN_STATUSES: tuple[RunStatus, ...] = ("queued", "running", "suspended")

QueuedWork = Literal["start", "resume", "recover"]
"""What the worker that claims a queued run does: ``start`` it from its user message, ``resume``
it with a confirmation's answer, or ``recover`` it from its last durable step (its driver died)."""

ConfirmationStatus = Literal["pending", "answered"]

ToolCallState = Literal["started", "settled"]
"""A ledger row's state: the tool was about to run, or its outcome is known."""

ApiKeyRole = Literal["admin", "member"]
"""``admin`` may also call admin endpoints (catalog writes, key management); ``member`` may not."""

MemoryScope = Literal["thread", "resource"]
"""``thread``: one conversation; ``resource``: every thread of one user inside one tenant."""


@dataclass(frozen=True, slots=True)
class Thread:
    """A conversation. It belongs to exactly one ``tenant_id`` and one ``resource_id`` (the user)."""

    id: str
    tenant_id: str
    resource_id: str
    title: str | None
    metadata: dict[str, Any]
    created_at: int
    updated_at: int


@dataclass(frozen=True, slots=True)
class MessageCursor:
    """A position in a thread's message order: strictly-after reads resume from here."""

    created_at: int
    message_id: str


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One entry of a thread's event log; ``id`` is assigned by the run's single writer."""

    thread_id: str
    id: int
    run_id: str | None
    type: str
    data: dict[str, Any]
    created_at: int


@dataclass(frozen=True, slots=True)
class OpeningEvent:
    """An event a run's start appends to its thread's log (``RunLedger.start_run``, its
    ``run-start``): numbered there, right above the log's end, in the start's transaction."""

    type: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RunRecord:
    """A run of an agent on a thread, with its lease: ``lease_owner`` drives it until
    ``lease_expires_at`` (epoch ms) unless it renews the lease, and ``lease_epoch`` fences the
    writes of every earlier owner."""

    run_id: str
    thread_id: str
    tenant_id: str
    status: RunStatus
    lease_owner: str
    lease_epoch: int
    reason: str | None
    started_at: int
    finished_at: int | None
    lease_expires_at: int
    agent_id: str | None = None
    """The agent it runs (None: a run opened without naming one, or before migration 0007)."""
    cancel_requested_at: int | None = None
    """When (epoch ms) a cancel was asked of a process that does not drive the run: the truth
    its owner, or whoever takes the run over, honours (None: no cancel is pending)."""
    queued_work: QueuedWork | None = None
    """What the run was last queued for (None: never queued; it ran where it was accepted)."""
    queued_request_id: str | None = None
    """For ``resume``: the confirmation whose answer the run resumes with."""
    queued_at: int | None = None
    """When (epoch ms) the run was last queued."""

    @property
    def is_open(self) -> bool:
        """True while the run is queued, running or suspended."""
        return self.status in OPEN_RUN_STATUSES


@dataclass(frozen=True, slots=True)
class ToolCallEntry:
    """One tool call of a run in the ``ToolLedger``: ``outcome`` is set once it ``settled``."""

    tool_call_id: str
    tool_name: str
    state: ToolCallState
    outcome: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class LedgerWrite:
    """What a run journals with a batch of the thread's events (``EventLogStore.append_events``),
    in the same transaction, fenced by the run's ``epoch``: tool-call rows and, when ``state`` is
    given, its progress checkpoint — as ``ToolLedger.record_progress`` writes them."""

    run_id: str
    epoch: int
    calls: tuple[ToolCallEntry, ...]
    state: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RunProgress:
    """How far a running run got: its last progress checkpoint and its tool calls by id."""

    state: dict[str, Any] | None
    calls: dict[str, ToolCallEntry] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RunQuota:
    """How many runs may be *running* at once (None: no limit): of the tenant, and of the tenant's
    runs of one agent. A suspended run waits for a person and holds no place."""

    tenant_runs: int | None = None
    agent_runs: int | None = None


@dataclass(frozen=True, slots=True)
class RunSnapshot:
    """What a finished run left, kept so a thread's history is not folded from its log again:
    ``data`` is the service's JSON document of the run (its agent tree and what is shown with
    it), made from the events ``first_event_id`` to ``last_event_id`` of the thread's log."""

    thread_id: str
    run_id: str
    first_event_id: int
    last_event_id: int
    data: dict[str, Any]
    created_at: int


@dataclass(frozen=True, slots=True)
class RunStart:
    """What a run's start (``RunLedger.start_run``) wrote and read in its one transaction: the
    open ``run``, its ``thread`` as stored, where the thread's log and its run snapshots ended
    when the run opened (0 when it had none), the thread's ``plan`` (``PlanTier``), and the
    ``opening`` events it appended right above ``last_event_id``, as stored."""

    run: RunRecord
    thread: Thread
    last_event_id: int
    last_snapshot_event_id: int
    plan: Plan | None = None
    opening: tuple[StoredEvent, ...] = ()


@dataclass(frozen=True, slots=True)
class Confirmation:
    """A question put to a human (approve a tool call, answer a suspension); answered once."""

    request_id: str
    thread_id: str
    run_id: str
    tool_call_id: str
    payload: dict[str, Any]
    status: ConfirmationStatus
    answer: dict[str, Any] | None
    created_at: int
    answered_at: int | None


@dataclass(frozen=True, slots=True)
class Plan:
    """The plan a thread's orchestrator keeps (goal, tasks, statuses) as one JSON document."""

    thread_id: str
    data: dict[str, Any]
    updated_at: int


@dataclass(frozen=True, slots=True)
class WorkingMemory:
    """A working-memory document; ``thread_id`` is None for resource scope."""

    tenant_id: str
    resource_id: str
    scope: MemoryScope
    thread_id: str | None
    content: str
    updated_at: int


@dataclass(frozen=True, slots=True)
class Observation:
    """One compressed note of a thread's history, written by the observer or the reflector."""

    id: str
    thread_id: str
    text: str
    created_at: int
    tokens: int = 0
    marker: str = "info"
    parent_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ObservationCursor:
    """How far the observer has read a thread: the last message it observed."""

    thread_id: str
    message_created_at: int
    message_id: str
    updated_at: int


@dataclass(frozen=True, slots=True)
class EmbeddingEntry:
    """A message's embedding to store; ``vector`` is any length, but one query compares like with like."""

    message_id: str
    vector: Sequence[float]
    text: str
    model: str


@dataclass(frozen=True, slots=True)
class EmbeddingHit:
    """A recall match: the message, its thread and the cosine similarity (1 = identical)."""

    message_id: str
    thread_id: str
    score: float


@dataclass(frozen=True, slots=True)
class ApiKey:
    """An API key as stored: who it acts for, and the hash of the key, never the key itself.

    ``key_id`` is public (it is the start of the key and what ``runyard keys list`` shows);
    ``secret_hash`` is the hex SHA-256 of the whole key. Times are epoch ms; ``expires_at`` None
    never expires, ``revoked_at`` None is not revoked, ``last_used_at`` is coarse (the service
    writes it at most once a minute per key).
    """

    key_id: str
    secret_hash: str
    tenant_id: str
    user_id: str
    role: ApiKeyRole
    name: str | None
    created_at: int
    expires_at: int | None
    revoked_at: int | None
    last_used_at: int | None


AgentVersionOrigin = Literal["file", "api", "leader"]
"""Where a catalog agent version came from: a catalog file, ``PUT /v1/admin/agents/{id}``, or
the leader a follower replica serves the catalog of (``runyard serve --catalog``)."""


@dataclass(frozen=True, slots=True)
class AgentVersion:
    """One version of a catalog agent: its spec as JSON (storage never reads it), keyed by its
    content hash, which covers the id and tenant too."""

    version: str
    agent_id: str
    tenant: str | None
    """None: the spec every tenant shares."""
    spec: dict[str, Any]
    origin: AgentVersionOrigin
    source: str
    """``file:line`` of a file's spec; who stored it for the API (``api``); the leader's
    ``grpc://host:port`` for a follower's."""
    created_at: int
    """When this version was first stored (epoch ms)."""


@dataclass(frozen=True, slots=True)
class AgentActivation:
    """The version of an agent the database makes active for a tenant (None: every tenant)."""

    agent_id: str
    tenant: str | None
    version: str
    activated_at: int


@dataclass(frozen=True, slots=True)
class NewFile:
    """A file about to be stored: who owns it and what its uploader called it (``Files``)."""

    id: str
    tenant_id: str
    resource_id: str
    filename: str | None = None


@dataclass(frozen=True, slots=True)
class FileRecord:
    """A stored file's metadata. ``media_type`` was sniffed from its bytes, never taken from the
    name or a header; ``sha256`` is hex; ``created_at`` epoch ms."""

    id: str
    tenant_id: str
    resource_id: str
    filename: str | None
    media_type: str
    size: int
    sha256: str
    created_at: int
