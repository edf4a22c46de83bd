"""Persistence for runyard: small protocols per part, one ``Store`` of them all; in-memory,
SQLite and PostgreSQL backends.

``open_store(url)`` returns a ready store (migrations applied); ``upgrade(url)`` only migrates.
This package imports nothing of runyard above ``runyard.messages``, ``runyard.ids`` and
``runyard.config``.

``open_store``, ``upgrade``, ``VectorMode`` and ``head_revision`` load SQLAlchemy and alembic
(about a second together), so they are imported on first use: a process that imports runyard
for its SDK and never opens a database does not pay for them.
"""

import importlib
from typing import TYPE_CHECKING

from runyard.storage.checkpoints import StoreCheckpointStore
from runyard.storage.errors import (
    ApiKeyConflict,
    DatabaseUnavailable,
    EventIdConflict,
    FileQuotaExceeded,
    FileTooLarge,
    InvalidDatabaseURL,
    RunConflict,
    RunNotFound,
    RunQuotaReached,
    StaleLease,
    StorageError,
    ThreadOwnershipError,
)
from runyard.storage.forwarding import ForwardingStore
from runyard.storage.parts import (
    ApiKeys,
    CatalogVersions,
    Checkpoints,
    Confirmations,
    Conversations,
    EventLogStore,
    Files,
    InstanceLiveness,
    MemoryTiers,
    ObservationTier,
    PlanTier,
    RateCounters,
    RunLedger,
    RunQueue,
    RunSnapshots,
    ToolLedger,
    VectorStore,
    WorkingMemoryTier,
)
from runyard.storage.protocol import Backend, Message, Store, VectorSearch
from runyard.storage.records import (
    OPEN_RUN_STATUSES,
    AgentActivation,
    AgentVersion,
    AgentVersionOrigin,
    ApiKey,
    ApiKeyRole,
    Confirmation,
    ConfirmationStatus,
    EmbeddingEntry,
    EmbeddingHit,
    FileRecord,
    LedgerWrite,
    MemoryScope,
    MessageCursor,
    NewFile,
    Observation,
    ObservationCursor,
    OpeningEvent,
    Plan,
    QueuedWork,
    RunProgress,
    RunQuota,
    RunRecord,
    RunSnapshot,
    RunStart,
    RunStatus,
    StoredEvent,
    Thread,
    ToolCallEntry,
    ToolCallState,
    WorkingMemory,
)
from runyard.storage.unavailable import connection_failed, database_unavailable
from runyard.storage.urls import DatabaseURL, parse_database_url

if TYPE_CHECKING:
    from runyard.storage.migrations import head_revision
    from runyard.storage.opening import VectorMode, open_store, upgrade

_LAZY = {
    "head_revision": "runyard.storage.migrations",
    "VectorMode": "runyard.storage.opening",
    "open_store": "runyard.storage.opening",
    "upgrade": "runyard.storage.opening",
}

__all__ = [
    "OPEN_RUN_STATUSES",
    "ApiKey",
    "ApiKeyConflict",
    "ApiKeyRole",
    "ApiKeys",
    "AgentActivation",
    "AgentVersion",
    "AgentVersionOrigin",
    "Backend",
    "CatalogVersions",
    "Checkpoints",
    "Confirmation",
    "ConfirmationStatus",
    "Confirmations",
    "DatabaseUnavailable",
    "Conversations",
    "DatabaseURL",
    "EmbeddingEntry",
    "EmbeddingHit",
    "EventIdConflict",
    "EventLogStore",
    "FileQuotaExceeded",
    "FileRecord",
    "FileTooLarge",
    "Files",
    "InstanceLiveness",
    "ForwardingStore",
    "InvalidDatabaseURL",
    "MemoryScope",
    "MemoryTiers",
    "Message",
    "MessageCursor",
    "NewFile",
    "Observation",
    "ObservationCursor",
    "OpeningEvent",
    "ObservationTier",
    "Plan",
    "PlanTier",
    "RateCounters",
    "RunConflict",
    "RunLedger",
    "RunQueue",
    "RunNotFound",
    "RunProgress",
    "QueuedWork",
    "RunQuota",
    "RunQuotaReached",
    "RunRecord",
    "RunSnapshot",
    "RunStart",
    "RunSnapshots",
    "RunStatus",
    "LedgerWrite",
    "StaleLease",
    "StorageError",
    "Store",
    "StoreCheckpointStore",
    "StoredEvent",
    "Thread",
    "ThreadOwnershipError",
    "ToolCallEntry",
    "ToolCallState",
    "ToolLedger",
    "VectorMode",
    "VectorSearch",
    "VectorStore",
    "WorkingMemory",
    "WorkingMemoryTier",
    "connection_failed",
    "database_unavailable",
    "head_revision",
    "open_store",
    "parse_database_url",
    "upgrade",
]


def __getattr__(name: str) -> object:
    """The lazily imported names (module docstring); any other name is missing as usual."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
