"""Leases with an expiry: ``runs.lease_expires_at`` (epoch ms), renewed by the owner's heartbeat.

Existing rows are backfilled: a closed run's lease ended when it finished; an open run's ends
now, at the upgrade — no process of the previous version renews a lease, so the first sweep
after the upgrade settles a run it left open, as that version's start-up sweep did.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from runyard.ids import now_ms

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``runs.lease_expires_at`` and backfill it."""
    # NOT NULL needs a value for the rows already there (SQLite cannot add the constraint later).
    op.add_column(
        "runs",
        sa.Column("lease_expires_at", sa.BigInteger, nullable=False, server_default=sa.text("0")),
    )
    runs = sa.table(
        "runs",
        sa.column("finished_at", sa.BigInteger),
        sa.column("lease_expires_at", sa.BigInteger),
    )
    op.execute(
        runs.update().values(lease_expires_at=sa.func.coalesce(runs.c.finished_at, now_ms()))
    )


def downgrade() -> None:
    """Drop ``runs.lease_expires_at``."""
    op.drop_column("runs", "lease_expires_at")
