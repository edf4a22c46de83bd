"""Run snapshots: one row per finished run, so a thread's history is read without its whole log.

The table starts empty; nothing is backfilled here. The service builds the snapshots of an
existing thread the first time its history is read (or its next run finishes), from the events
it already has — a migration would have to fold every thread's log at upgrade time, with the
service's code, whether anyone ever reads the thread again or not.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from runyard.storage.sql.schema import StorableText, json_type

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``run_snapshots``."""
    op.create_table(
        "run_snapshots",
        sa.Column("thread_id", StorableText, nullable=False),
        sa.Column("run_id", StorableText, nullable=False),
        sa.Column("first_event_id", sa.BigInteger, nullable=False),
        sa.Column("last_event_id", sa.BigInteger, nullable=False),
        sa.Column("data", json_type(), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("thread_id", "run_id"),
    )
    op.create_index("run_snapshots_by_position", "run_snapshots", ["thread_id", "last_event_id"])


def downgrade() -> None:
    """Drop ``run_snapshots``."""
    op.drop_index("run_snapshots_by_position", table_name="run_snapshots")
    op.drop_table("run_snapshots")
