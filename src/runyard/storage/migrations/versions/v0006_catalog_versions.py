"""Catalog agent versions: every version by content hash with its spec JSON, the version the
database activates per (tenant, agent), and the revision counter replicas poll.

The tables start empty: a server records its files' versions when it loads them, and nothing
before this revision had versions to keep. ``catalog_revision`` gets its one row from the first
activation; until then the revision reads as 0.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from runyard.storage.sql.schema import StorableText, json_type

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``agent_versions``, ``agent_activations`` and ``catalog_revision``."""
    op.create_table(
        "agent_versions",
        sa.Column("version", StorableText, primary_key=True),
        sa.Column("tenant", StorableText, nullable=False),
        sa.Column("agent_id", StorableText, nullable=False),
        sa.Column("spec", json_type(), nullable=False),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("source", StorableText, nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index(
        "agent_versions_by_agent", "agent_versions", ["tenant", "agent_id", "created_at"]
    )
    op.create_table(
        "agent_activations",
        sa.Column("tenant", StorableText, nullable=False),
        sa.Column("agent_id", StorableText, nullable=False),
        sa.Column("version", StorableText, nullable=False),
        sa.Column("activated_at", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("tenant", "agent_id"),
    )
    op.create_table(
        "catalog_revision",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("revision", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    """Drop the three tables."""
    op.drop_table("catalog_revision")
    op.drop_table("agent_activations")
    op.drop_index("agent_versions_by_agent", table_name="agent_versions")
    op.drop_table("agent_versions")
