"""API keys: one row per key — the hash of the key (never the key), who it acts for, its lifetime.

Self-contained: it creates one new table and touches nothing else, so it can be renumbered
(``revision`` / ``down_revision`` below are the only places that name its place in the chain).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from runyard.storage.sql.schema import StorableText

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``api_keys``."""
    op.create_table(
        "api_keys",
        sa.Column("key_id", StorableText, primary_key=True),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("tenant_id", StorableText, nullable=False),
        sa.Column("user_id", StorableText, nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("name", StorableText),
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.BigInteger),
        sa.Column("revoked_at", sa.BigInteger),
        sa.Column("last_used_at", sa.BigInteger),
    )
    op.create_index("api_keys_by_tenant", "api_keys", ["tenant_id", "created_at"])


def downgrade() -> None:
    """Drop ``api_keys`` (every key stops working)."""
    op.drop_index("api_keys_by_tenant", table_name="api_keys")
    op.drop_table("api_keys")
