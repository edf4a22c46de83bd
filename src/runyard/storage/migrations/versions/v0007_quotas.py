"""Quotas: ``runs.agent_id`` (which agent a run runs, so running runs are counted per agent),
an index to count a tenant's running runs, and the ``rate_counters`` table of request buckets.

Runs opened before this revision have no agent: they count towards their tenant's quota of
running runs, not towards any agent's. ``rate_counters`` starts empty: the minute before the
upgrade is forgotten, as a restart forgot it when each process counted its own.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from runyard.storage.sql.schema import StorableText

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``runs.agent_id`` and ``runs_by_tenant``; create ``rate_counters``."""
    op.add_column("runs", sa.Column("agent_id", StorableText, nullable=True))
    op.create_index("runs_by_tenant", "runs", ["tenant_id", "status"])
    op.create_table(
        "rate_counters",
        sa.Column("key", StorableText, nullable=False),
        sa.Column("second", sa.BigInteger, nullable=False),
        sa.Column("hits", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("key", "second"),
    )
    op.create_index("rate_counters_by_second", "rate_counters", ["second"])


def downgrade() -> None:
    """Drop ``rate_counters``, ``runs_by_tenant`` and ``runs.agent_id``."""
    op.drop_index("rate_counters_by_second", table_name="rate_counters")
    op.drop_table("rate_counters")
    op.drop_index("runs_by_tenant", table_name="runs")
    op.drop_column("runs", "agent_id")
