"""Instances: the processes that hold an advisory lock while they live (PostgreSQL), so their
death is seen when the lock goes, and their runs are taken over in seconds. Empty at first.

Self-contained: one new table, nothing else touched.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from runyard.storage.sql.schema import StorableText

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``instances``."""
    op.create_table(
        "instances",
        sa.Column("instance_id", StorableText, primary_key=True),
        sa.Column("held_since", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    """Drop ``instances``."""
    op.drop_table("instances")
