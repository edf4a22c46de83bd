"""Uploaded files: ``files`` (metadata), ``file_chunks`` (their bytes, when kept in the
database) and ``file_references`` (which threads use each file), all empty.

Self-contained: three new tables, nothing else touched, so it can be renumbered (``revision`` /
``down_revision`` below are the only places that name its place in the chain).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from runyard.storage.sql.schema import StorableText

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``files``, ``file_chunks`` and ``file_references``."""
    op.create_table(
        "files",
        sa.Column("id", StorableText, primary_key=True),
        sa.Column("tenant_id", StorableText, nullable=False),
        sa.Column("resource_id", StorableText, nullable=False),
        sa.Column("filename", StorableText),
        sa.Column("media_type", sa.String(255), nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("created_at", sa.BigInteger, nullable=False),
    )
    op.create_index("files_by_tenant", "files", ["tenant_id", "state"])
    op.create_table(
        "file_chunks",
        sa.Column("file_id", StorableText, nullable=False),
        sa.Column("start", sa.BigInteger, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.PrimaryKeyConstraint("file_id", "start"),
    )
    op.create_table(
        "file_references",
        sa.Column("file_id", StorableText, nullable=False),
        sa.Column("thread_id", StorableText, nullable=False),
        sa.PrimaryKeyConstraint("file_id", "thread_id"),
    )
    op.create_index("file_references_by_thread", "file_references", ["thread_id"])


def downgrade() -> None:
    """Drop the three tables, and with them every stored file."""
    op.drop_index("file_references_by_thread", table_name="file_references")
    op.drop_table("file_references")
    op.drop_table("file_chunks")
    op.drop_index("files_by_tenant", table_name="files")
    op.drop_table("files")
