"""The run queue: ``queued`` is an open status, and ``runs`` says what a queued run waits for.

An ``api`` replica (``runyard serve --role api``) queues the runs it accepts; ``worker`` replicas
claim them (``RunQueue``). A queued run is its thread's open run, so the partial unique index that
keeps one open run per thread is rebuilt to count ``queued`` too, and ``runs_by_queue`` finds the
longest-queued runs. ``queued_work`` says what the claimer does (``start``, ``resume``,
``recover``), ``queued_request_id`` which confirmation a ``resume`` answers, ``queued_at`` since
when it waits. Existing runs were never queued: the new columns start empty.

Downgrading turns every queued run into a running one whose lease has expired, so the older
version's crash sweep carries it on (or closes it) instead of leaving it queued forever.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_OPEN_BEFORE = sa.text("status IN ('running', 'suspended')")
_OPEN_NOW = sa.text("status IN ('queued', 'running', 'suspended')")


def upgrade() -> None:
    """Add the queue columns and ``runs_by_queue``; count ``queued`` runs as open."""
    op.add_column("runs", sa.Column("queued_work", sa.String(16), nullable=True))
    op.add_column("runs", sa.Column("queued_request_id", sa.String(255), nullable=True))
    op.add_column("runs", sa.Column("queued_at", sa.BigInteger, nullable=True))
    _one_open_per_thread(_OPEN_NOW)
    op.create_index("runs_by_queue", "runs", ["status", "queued_at"])


def downgrade() -> None:
    """Hand queued runs to the older sweep, then drop what ``upgrade`` added."""
    op.execute("UPDATE runs SET status = 'running', lease_expires_at = 0 WHERE status = 'queued'")
    op.drop_index("runs_by_queue", table_name="runs")
    _one_open_per_thread(_OPEN_BEFORE)
    op.drop_column("runs", "queued_at")
    op.drop_column("runs", "queued_request_id")
    op.drop_column("runs", "queued_work")


def _one_open_per_thread(where: sa.TextClause) -> None:
    op.drop_index("runs_one_open_per_thread", table_name="runs")
    op.create_index(
        "runs_one_open_per_thread",
        "runs",
        ["thread_id"],
        unique=True,
        sqlite_where=where,
        postgresql_where=where,
    )
