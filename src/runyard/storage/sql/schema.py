"""The tables, as SQLAlchemy Core metadata. Migrations create them, or ``create_all`` in an empty
database (the same schema: tests/storage/test_store_opening.py); queries read this.

Timestamps are integer epoch milliseconds. JSON columns are JSON text on both dialects (``json``,
not ``jsonb``, on PostgreSQL); text columns are ``StorableText``. Together they make both
backends store the same thing (docs/storage.md, "What text is stored"). Change a table here
only together with a new migration.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.types import TypeDecorator, TypeEngine

from runyard.json_text import is_storable, replace_surrogates

__all__ = [
    "OPEN_RUNS_WHERE",
    "SHARED_TENANT",
    "StorableText",
    "api_keys",
    "agent_activations",
    "agent_versions",
    "catalog_revision",
    "checkpoints",
    "create_all",
    "confirmations",
    "embeddings",
    "events",
    "file_chunks",
    "file_references",
    "files",
    "json_type",
    "messages",
    "metadata",
    "observation_cursors",
    "observations",
    "plans",
    "rate_counters",
    "run_snapshots",
    "runs",
    "seq_type",
    "storable_text",
    "threads",
    "tool_ledger",
    "working_memory",
]

metadata = MetaData()


def json_type() -> TypeEngine[Any]:
    """JSON kept as the text ``runyard.json_text`` wrote; Python None is stored as SQL NULL.

    PostgreSQL's ``json`` keeps the text as written (``jsonb`` re-renders it with spaces and
    refuses ``\\u0000``); SQLite keeps text anyway.
    """
    return JSON(none_as_null=True)


def storable_text(text: str) -> str:
    """``text`` as a text column stores it: NUL and lone surrogates become U+FFFD."""
    if is_storable(text):
        return text
    return replace_surrogates(text.replace("\x00", "\ufffd"))


class StorableText(TypeDecorator[str]):
    """A text column both backends fill alike: every value is written as ``storable_text``.

    PostgreSQL's text cannot hold NUL and no UTF-8 column can hold a lone surrogate, so both are
    replaced, on SQLite too, at this one place; a model's odd output never fails a write.
    """

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else storable_text(value)


def seq_type() -> TypeEngine[int]:
    """An auto-incrementing key: BIGINT on PostgreSQL, SQLite's rowid INTEGER."""
    return BigInteger().with_variant(Integer(), "sqlite")


OPEN_RUNS_WHERE = text("status IN ('queued', 'running', 'suspended')")

threads = Table(
    "threads",
    metadata,
    Column("id", StorableText, primary_key=True),
    Column("tenant_id", StorableText, nullable=False),
    Column("resource_id", StorableText, nullable=False),
    Column("title", StorableText),
    Column("metadata", json_type(), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Index("threads_by_owner", "tenant_id", "resource_id", "updated_at"),
)

messages = Table(
    "messages",
    metadata,
    Column("seq", seq_type(), primary_key=True, autoincrement=True),
    Column("thread_id", StorableText, nullable=False),
    Column("id", StorableText, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("data", json_type(), nullable=False),
    UniqueConstraint("thread_id", "id", name="messages_thread_message"),
    Index("messages_by_thread_time", "thread_id", "created_at", "seq"),
)

working_memory = Table(
    "working_memory",
    metadata,
    Column("tenant_id", StorableText, nullable=False),
    Column("resource_id", StorableText, nullable=False),
    # "" for resource scope, so the primary key stays NOT NULL on both dialects.
    Column("thread_id", StorableText, nullable=False),
    Column("scope", String(16), nullable=False),
    Column("content", StorableText, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("tenant_id", "resource_id", "thread_id"),
)

observations = Table(
    "observations",
    metadata,
    Column("seq", seq_type(), primary_key=True, autoincrement=True),
    Column("thread_id", StorableText, nullable=False),
    Column("id", StorableText, nullable=False),
    Column("text", StorableText, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("tokens", Integer, nullable=False),
    Column("marker", String(32), nullable=False),
    Column("parent_id", StorableText),
    Column("metadata", json_type(), nullable=False),
    UniqueConstraint("thread_id", "id", name="observations_thread_observation"),
    Index("observations_by_thread_time", "thread_id", "created_at", "seq"),
)

observation_cursors = Table(
    "observation_cursors",
    metadata,
    Column("thread_id", StorableText, primary_key=True),
    Column("message_created_at", BigInteger, nullable=False),
    Column("message_id", StorableText, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
)

plans = Table(
    "plans",
    metadata,
    Column("thread_id", StorableText, primary_key=True),
    Column("data", json_type(), nullable=False),
    Column("updated_at", BigInteger, nullable=False),
)

embeddings = Table(
    "embeddings",
    metadata,
    # A stable integer key (SQLite's rowid alias) that vector side-indexes point at.
    Column("seq", seq_type(), primary_key=True, autoincrement=True),
    Column("thread_id", StorableText, nullable=False),
    Column("message_id", StorableText, nullable=False),
    Column("tenant_id", StorableText, nullable=False),
    Column("resource_id", StorableText, nullable=False),
    Column("model", StorableText, nullable=False),
    Column("text", StorableText, nullable=False),
    Column("dims", Integer, nullable=False),
    # float32 little-endian; the portable source of truth (pgvector keeps its own column).
    Column("vector", LargeBinary, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    UniqueConstraint("thread_id", "message_id", name="embeddings_thread_message"),
    Index("embeddings_by_owner", "tenant_id", "resource_id", "dims", "thread_id"),
)

runs = Table(
    "runs",
    metadata,
    Column("run_id", String(255), primary_key=True),
    Column("thread_id", StorableText, nullable=False),
    Column("tenant_id", StorableText, nullable=False),
    Column("status", String(32), nullable=False),
    Column("lease_owner", String(255), nullable=False),
    Column("lease_epoch", BigInteger, nullable=False),
    Column("reason", StorableText),
    Column("started_at", BigInteger, nullable=False),
    Column("finished_at", BigInteger),
    # Renewed by the owner's heartbeat; 0 (a row written without one) is long expired.
    Column("lease_expires_at", BigInteger, nullable=False, server_default=text("0")),
    Column("agent_id", StorableText),
    # Set by a cancel sent to a replica that does not drive the run; the owner acts on it.
    Column("cancel_requested_at", BigInteger),
    # A queued run waits for a worker replica: what for, and since when (claims go oldest first).
    Column("queued_work", String(16)),
    Column("queued_request_id", String(255)),
    Column("queued_at", BigInteger),
    # The database, not a read-then-write check, keeps one open run per thread.
    Index(
        "runs_one_open_per_thread",
        "thread_id",
        unique=True,
        sqlite_where=OPEN_RUNS_WHERE,  # PostgreSQL's is added by create_all
    ),
    Index("runs_by_status", "status", "started_at"),
    Index("runs_by_tenant", "tenant_id", "status"),
    Index("runs_by_queue", "status", "queued_at"),
)

events = Table(
    "events",
    metadata,
    Column("thread_id", StorableText, nullable=False),
    Column("id", BigInteger, nullable=False),
    Column("run_id", StorableText),
    Column("type", String(64), nullable=False),
    Column("data", json_type(), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("thread_id", "id"),
)

run_snapshots = Table(
    "run_snapshots",
    metadata,
    Column("thread_id", StorableText, nullable=False),
    Column("run_id", StorableText, nullable=False),
    Column("first_event_id", BigInteger, nullable=False),
    Column("last_event_id", BigInteger, nullable=False),
    Column("data", json_type(), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("thread_id", "run_id"),
    Index("run_snapshots_by_position", "thread_id", "last_event_id"),
)

confirmations = Table(
    "confirmations",
    metadata,
    Column("request_id", StorableText, primary_key=True),
    Column("thread_id", StorableText, nullable=False),
    Column("run_id", StorableText, nullable=False),
    Column("tool_call_id", StorableText, nullable=False),
    Column("payload", json_type(), nullable=False),
    Column("status", String(16), nullable=False),
    Column("answer", json_type()),
    Column("created_at", BigInteger, nullable=False),
    Column("answered_at", BigInteger),
    Index("confirmations_by_thread", "thread_id", "status", "created_at"),
)

checkpoints = Table(
    "checkpoints",
    metadata,
    Column("key", StorableText, primary_key=True),
    Column("state", json_type(), nullable=False),
    Column("expires_at", BigInteger),
    Column("updated_at", BigInteger, nullable=False),
    Index("checkpoints_by_expiry", "expires_at"),
)

# One row per tool call a run started, keyed by the idempotency key (run id, tool call id):
# ``started`` before the tool runs, ``settled`` with its outcome, so a takeover never runs it twice.
tool_ledger = Table(
    "tool_ledger",
    metadata,
    Column("run_id", String(255), nullable=False),
    Column("tool_call_id", StorableText, nullable=False),
    Column("tool_name", StorableText, nullable=False),
    Column("state", String(16), nullable=False),
    Column("outcome", json_type()),
    Column("updated_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("run_id", "tool_call_id"),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("key_id", StorableText, primary_key=True),
    # Hex SHA-256 of the whole key; the key itself is never stored.
    Column("secret_hash", String(64), nullable=False),
    Column("tenant_id", StorableText, nullable=False),
    Column("user_id", StorableText, nullable=False),
    Column("role", String(16), nullable=False),
    Column("name", StorableText),
    Column("created_at", BigInteger, nullable=False),
    Column("expires_at", BigInteger),
    Column("revoked_at", BigInteger),
    Column("last_used_at", BigInteger),
    Index("api_keys_by_tenant", "tenant_id", "created_at"),
)

SHARED_TENANT = ""
"""How the catalog tables write "every tenant" (a key column cannot be NULL)."""

agent_versions = Table(
    "agent_versions",
    metadata,
    Column("version", StorableText, primary_key=True),
    Column("tenant", StorableText, nullable=False),
    Column("agent_id", StorableText, nullable=False),
    Column("spec", json_type(), nullable=False),
    Column("origin", String(16), nullable=False),
    Column("source", StorableText, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("agent_versions_by_agent", "tenant", "agent_id", "created_at"),
)

agent_activations = Table(
    "agent_activations",
    metadata,
    Column("tenant", StorableText, nullable=False),
    Column("agent_id", StorableText, nullable=False),
    Column("version", StorableText, nullable=False),
    Column("activated_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("tenant", "agent_id"),
)

catalog_revision = Table(
    "catalog_revision",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("revision", BigInteger, nullable=False),
)
"""At most one row (``id`` 1): the counter replicas poll to see an activation; none = 0."""

rate_counters = Table(
    "rate_counters",
    metadata,
    Column("key", StorableText, nullable=False),
    # Epoch second of the bucket: one row per key and second that saw a request.
    Column("second", BigInteger, nullable=False),
    Column("hits", BigInteger, nullable=False),
    PrimaryKeyConstraint("key", "second"),
    Index("rate_counters_by_second", "second"),
)

files = Table(
    "files",
    metadata,
    Column("id", StorableText, primary_key=True),
    Column("tenant_id", StorableText, nullable=False),
    Column("resource_id", StorableText, nullable=False),
    Column("filename", StorableText),
    Column("media_type", String(255), nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("sha256", String(64), nullable=False),
    # "writing" while its bytes arrive (invisible), "ready" once whole.
    Column("state", String(16), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("files_by_tenant", "tenant_id", "state"),
)

# A file's bytes in the database (the default ``FileBytes``): pieces of 256 KiB, by start offset.
file_chunks = Table(
    "file_chunks",
    metadata,
    Column("file_id", StorableText, nullable=False),
    Column("start", BigInteger, nullable=False),
    Column("data", LargeBinary, nullable=False),
    PrimaryKeyConstraint("file_id", "start"),
)

# Which threads use a file: deleting a thread deletes the files no other thread references.
file_references = Table(
    "file_references",
    metadata,
    Column("file_id", StorableText, nullable=False),
    Column("thread_id", StorableText, nullable=False),
    PrimaryKeyConstraint("file_id", "thread_id"),
    Index("file_references_by_thread", "thread_id"),
)

# The instances that hold a PostgreSQL advisory lock while they live (``InstanceLiveness``): a
# row whose lock nobody holds is a process that died. Deleted when its process stops cleanly.
instances = Table(
    "instances",
    metadata,
    Column("instance_id", StorableText, primary_key=True),
    Column("held_since", BigInteger, nullable=False),
)


def create_all(connection: Connection) -> None:
    """Create every table, with its indexes, in an empty database."""
    if connection.dialect.name == "postgresql":
        # Named only here: naming a dialect's option loads that dialect, and a SQLite process
        # would load SQLAlchemy's PostgreSQL one (~50 ms of CPU) for nothing.
        (one_open,) = (i for i in runs.indexes if i.name == "runs_one_open_per_thread")
        one_open.dialect_kwargs["postgresql_where"] = OPEN_RUNS_WHERE
    metadata.create_all(connection)
