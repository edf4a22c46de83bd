"""Persistence for runyard: small protocols per part, one ``Store`` of them all; in-memory,
SQLite and PostgreSQL backends.

``open_store(url)`` returns a ready store (migrations applied); ``upgrade(url)`` only migrates.
This package imports nothing of runyard above ``runyard.messages``, ``runyard.ids`` and
``runyard.config``.
"""

from runyard.storage.checkpoints import StoreCheckpointStore
from runyard.storage.errors import (
    EventIdConflict,
    InvalidDatabaseURL,
    RunConflict,
    RunNotFound,
    StaleLease,
    StorageError,
    ThreadOwnershipError,
)
from runyard.storage.migrations import head_revision
from runyard.storage.opening import VectorMode, open_store, upgrade
from runyard.storage.parts import (
    CatalogVersions,
    Checkpoints,
    Confirmations,
    Conversations,
    EventLogStore,
    MemoryTiers,
    ObservationTier,
    PlanTier,
    RunLedger,
    RunSnapshots,
    VectorStore,
    WorkingMemoryTier,
)
from runyard.storage.protocol import Backend, Message, Store, VectorSearch
from runyard.storage.records import (
    OPEN_RUN_STATUSES,
    AgentActivation,
    AgentVersion,
    AgentVersionOrigin,
    Confirmation,
    ConfirmationStatus,
    EmbeddingEntry,
    EmbeddingHit,
    MemoryScope,
    MessageCursor,
    Observation,
    ObservationCursor,
    Plan,
    RunRecord,
    RunSnapshot,
    RunStatus,
    StoredEvent,
    Thread,
    WorkingMemory,
)
from runyard.storage.urls import DatabaseURL, parse_database_url

__all__ = [
    "OPEN_RUN_STATUSES",
    "AgentActivation",
    "AgentVersion",
    "AgentVersionOrigin",
    "Backend",
    "CatalogVersions",
    "Checkpoints",
    "Confirmation",
    "ConfirmationStatus",
    "Confirmations",
    "Conversations",
    "DatabaseURL",
    "EmbeddingEntry",
    "EmbeddingHit",
    "EventIdConflict",
    "EventLogStore",
    "InvalidDatabaseURL",
    "MemoryScope",
    "MemoryTiers",
    "Message",
    "MessageCursor",
    "Observation",
    "ObservationCursor",
    "ObservationTier",
    "Plan",
    "PlanTier",
    "RunConflict",
    "RunLedger",
    "RunNotFound",
    "RunRecord",
    "RunSnapshot",
    "RunSnapshots",
    "RunStatus",
    "StaleLease",
    "StorageError",
    "Store",
    "StoreCheckpointStore",
    "StoredEvent",
    "Thread",
    "ThreadOwnershipError",
    "VectorMode",
    "VectorSearch",
    "VectorStore",
    "WorkingMemory",
    "WorkingMemoryTier",
    "head_revision",
    "open_store",
    "parse_database_url",
    "upgrade",
]
