"""The first schema: threads, messages, memory tiers, runs, event log, confirmations, checkpoints.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from runyard.storage.sql.schema import seq_type

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_ID = sa.String(255)

OPEN_RUNS_WHERE = sa.text("status IN ('running', 'suspended')")
"""The open runs as this revision knew them (revision 0009 adds ``queued``)."""


def json_type() -> sa.types.TypeEngine[Any]:
    """The JSON columns as this revision made them (revision 0003 turns JSONB into json)."""
    return sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def _ms(name: str, nullable: bool = False) -> sa.Column[int]:
    return sa.Column(name, sa.BigInteger, nullable=nullable)


def upgrade() -> None:
    """Create every table of revision 0001."""
    _conversations()
    _memory_tiers()
    _service()


def _conversations() -> None:
    op.create_table(
        "threads",
        sa.Column("id", _ID, primary_key=True),
        sa.Column("tenant_id", _ID, nullable=False),
        sa.Column("resource_id", _ID, nullable=False),
        sa.Column("title", sa.Text),
        sa.Column("metadata", json_type(), nullable=False),
        _ms("created_at"),
        _ms("updated_at"),
    )
    op.create_index("threads_by_owner", "threads", ["tenant_id", "resource_id", "updated_at"])
    op.create_table(
        "messages",
        sa.Column("seq", seq_type(), primary_key=True, autoincrement=True),
        sa.Column("thread_id", _ID, nullable=False),
        sa.Column("id", _ID, nullable=False),
        _ms("created_at"),
        sa.Column("data", json_type(), nullable=False),
        sa.UniqueConstraint("thread_id", "id", name="messages_thread_message"),
    )
    op.create_index("messages_by_thread_time", "messages", ["thread_id", "created_at", "seq"])


def _memory_tiers() -> None:
    op.create_table(
        "working_memory",
        sa.Column("tenant_id", _ID, nullable=False),
        sa.Column("resource_id", _ID, nullable=False),
        sa.Column("thread_id", _ID, nullable=False),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        _ms("updated_at"),
        sa.PrimaryKeyConstraint("tenant_id", "resource_id", "thread_id"),
    )
    op.create_table(
        "observations",
        sa.Column("seq", seq_type(), primary_key=True, autoincrement=True),
        sa.Column("thread_id", _ID, nullable=False),
        sa.Column("id", _ID, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        _ms("created_at"),
        sa.Column("tokens", sa.Integer, nullable=False),
        sa.Column("marker", sa.String(32), nullable=False),
        sa.Column("parent_id", _ID),
        sa.Column("metadata", json_type(), nullable=False),
        sa.UniqueConstraint("thread_id", "id", name="observations_thread_observation"),
    )
    op.create_index(
        "observations_by_thread_time", "observations", ["thread_id", "created_at", "seq"]
    )
    op.create_table(
        "observation_cursors",
        sa.Column("thread_id", _ID, primary_key=True),
        _ms("message_created_at"),
        sa.Column("message_id", _ID, nullable=False),
        _ms("updated_at"),
    )
    op.create_table(
        "plans",
        sa.Column("thread_id", _ID, primary_key=True),
        sa.Column("data", json_type(), nullable=False),
        _ms("updated_at"),
    )
    op.create_table(
        "embeddings",
        sa.Column("seq", seq_type(), primary_key=True, autoincrement=True),
        sa.Column("thread_id", _ID, nullable=False),
        sa.Column("message_id", _ID, nullable=False),
        sa.Column("tenant_id", _ID, nullable=False),
        sa.Column("resource_id", _ID, nullable=False),
        sa.Column("model", _ID, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("dims", sa.Integer, nullable=False),
        sa.Column("vector", sa.LargeBinary, nullable=False),
        _ms("created_at"),
        sa.UniqueConstraint("thread_id", "message_id", name="embeddings_thread_message"),
    )
    op.create_index(
        "embeddings_by_owner", "embeddings", ["tenant_id", "resource_id", "dims", "thread_id"]
    )


def _service() -> None:
    op.create_table(
        "runs",
        sa.Column("run_id", _ID, primary_key=True),
        sa.Column("thread_id", _ID, nullable=False),
        sa.Column("tenant_id", _ID, nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("lease_owner", _ID, nullable=False),
        sa.Column("lease_epoch", sa.BigInteger, nullable=False),
        sa.Column("reason", sa.Text),
        _ms("started_at"),
        _ms("finished_at", nullable=True),
    )
    op.create_index(
        "runs_one_open_per_thread",
        "runs",
        ["thread_id"],
        unique=True,
        sqlite_where=OPEN_RUNS_WHERE,
        postgresql_where=OPEN_RUNS_WHERE,
    )
    op.create_index("runs_by_status", "runs", ["status", "started_at"])
    op.create_table(
        "events",
        sa.Column("thread_id", _ID, nullable=False),
        sa.Column("id", sa.BigInteger, nullable=False),
        sa.Column("run_id", _ID),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("data", json_type(), nullable=False),
        _ms("created_at"),
        sa.PrimaryKeyConstraint("thread_id", "id"),
    )
    op.create_table(
        "confirmations",
        sa.Column("request_id", _ID, primary_key=True),
        sa.Column("thread_id", _ID, nullable=False),
        sa.Column("run_id", _ID, nullable=False),
        sa.Column("tool_call_id", _ID, nullable=False),
        sa.Column("payload", json_type(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("answer", json_type()),
        _ms("created_at"),
        _ms("answered_at", nullable=True),
    )
    op.create_index(
        "confirmations_by_thread", "confirmations", ["thread_id", "status", "created_at"]
    )
    op.create_table(
        "checkpoints",
        sa.Column("key", _ID, primary_key=True),
        sa.Column("state", json_type(), nullable=False),
        sa.Column("expires_at", sa.BigInteger),
        _ms("updated_at"),
    )
    op.create_index("checkpoints_by_expiry", "checkpoints", ["expires_at"])


def downgrade() -> None:
    """Drop every table of revision 0001."""
    for table in (
        "checkpoints",
        "confirmations",
        "events",
        "runs",
        "embeddings",
        "plans",
        "observation_cursors",
        "observations",
        "working_memory",
        "messages",
        "threads",
    ):
        op.drop_table(table)
