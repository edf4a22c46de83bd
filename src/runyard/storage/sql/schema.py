"""The tables, as SQLAlchemy Core metadata. Migrations create them; queries read this.

Timestamps are integer epoch milliseconds. JSON columns are JSON on SQLite and JSONB on
PostgreSQL. Change a table here only together with a new migration.
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
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.types import TypeEngine

__all__ = [
    "OPEN_RUNS_WHERE",
    "checkpoints",
    "confirmations",
    "embeddings",
    "events",
    "json_type",
    "messages",
    "metadata",
    "observation_cursors",
    "observations",
    "plans",
    "runs",
    "seq_type",
    "threads",
    "working_memory",
]

metadata = MetaData()


def json_type() -> TypeEngine[Any]:
    """JSON on SQLite, JSONB on PostgreSQL; Python None is stored as SQL NULL."""
    return JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def seq_type() -> TypeEngine[int]:
    """An auto-incrementing key: BIGINT on PostgreSQL, SQLite's rowid INTEGER."""
    return BigInteger().with_variant(Integer(), "sqlite")


OPEN_RUNS_WHERE = text("status IN ('running', 'suspended')")

threads = Table(
    "threads",
    metadata,
    Column("id", String(255), primary_key=True),
    Column("tenant_id", String(255), nullable=False),
    Column("resource_id", String(255), nullable=False),
    Column("title", Text),
    Column("metadata", json_type(), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    Index("threads_by_owner", "tenant_id", "resource_id", "updated_at"),
)

messages = Table(
    "messages",
    metadata,
    Column("seq", seq_type(), primary_key=True, autoincrement=True),
    Column("thread_id", String(255), nullable=False),
    Column("id", String(255), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("data", json_type(), nullable=False),
    UniqueConstraint("thread_id", "id", name="messages_thread_message"),
    Index("messages_by_thread_time", "thread_id", "created_at", "seq"),
)

working_memory = Table(
    "working_memory",
    metadata,
    Column("tenant_id", String(255), nullable=False),
    Column("resource_id", String(255), nullable=False),
    # "" for resource scope, so the primary key stays NOT NULL on both dialects.
    Column("thread_id", String(255), nullable=False),
    Column("scope", String(16), nullable=False),
    Column("content", Text, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("tenant_id", "resource_id", "thread_id"),
)

observations = Table(
    "observations",
    metadata,
    Column("seq", seq_type(), primary_key=True, autoincrement=True),
    Column("thread_id", String(255), nullable=False),
    Column("id", String(255), nullable=False),
    Column("text", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("tokens", Integer, nullable=False),
    Column("marker", String(32), nullable=False),
    Column("parent_id", String(255)),
    Column("metadata", json_type(), nullable=False),
    UniqueConstraint("thread_id", "id", name="observations_thread_observation"),
    Index("observations_by_thread_time", "thread_id", "created_at", "seq"),
)

observation_cursors = Table(
    "observation_cursors",
    metadata,
    Column("thread_id", String(255), primary_key=True),
    Column("message_created_at", BigInteger, nullable=False),
    Column("message_id", String(255), nullable=False),
    Column("updated_at", BigInteger, nullable=False),
)

plans = Table(
    "plans",
    metadata,
    Column("thread_id", String(255), primary_key=True),
    Column("data", json_type(), nullable=False),
    Column("updated_at", BigInteger, nullable=False),
)

embeddings = Table(
    "embeddings",
    metadata,
    # A stable integer key (SQLite's rowid alias) that vector side-indexes point at.
    Column("seq", seq_type(), primary_key=True, autoincrement=True),
    Column("thread_id", String(255), nullable=False),
    Column("message_id", String(255), nullable=False),
    Column("tenant_id", String(255), nullable=False),
    Column("resource_id", String(255), nullable=False),
    Column("model", String(255), nullable=False),
    Column("text", Text, nullable=False),
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
    Column("thread_id", String(255), nullable=False),
    Column("tenant_id", String(255), nullable=False),
    Column("status", String(32), nullable=False),
    Column("lease_owner", String(255), nullable=False),
    Column("lease_epoch", BigInteger, nullable=False),
    Column("reason", Text),
    Column("started_at", BigInteger, nullable=False),
    Column("finished_at", BigInteger),
    # Renewed by the owner's heartbeat; 0 (a row written without one) is long expired.
    Column("lease_expires_at", BigInteger, nullable=False, server_default=text("0")),
    # The database, not a read-then-write check, keeps one open run per thread.
    Index(
        "runs_one_open_per_thread",
        "thread_id",
        unique=True,
        sqlite_where=OPEN_RUNS_WHERE,
        postgresql_where=OPEN_RUNS_WHERE,
    ),
    Index("runs_by_status", "status", "started_at"),
)

events = Table(
    "events",
    metadata,
    Column("thread_id", String(255), nullable=False),
    Column("id", BigInteger, nullable=False),
    Column("run_id", String(255)),
    Column("type", String(64), nullable=False),
    Column("data", json_type(), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    PrimaryKeyConstraint("thread_id", "id"),
)

confirmations = Table(
    "confirmations",
    metadata,
    Column("request_id", String(255), primary_key=True),
    Column("thread_id", String(255), nullable=False),
    Column("run_id", String(255), nullable=False),
    Column("tool_call_id", String(255), nullable=False),
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
    Column("key", String(255), primary_key=True),
    Column("state", json_type(), nullable=False),
    Column("expires_at", BigInteger),
    Column("updated_at", BigInteger, nullable=False),
    Index("checkpoints_by_expiry", "expires_at"),
)
