"""Durable runs: the ``tool_ledger`` of each run's tool calls, and ``runs.cancel_requested_at``.

``tool_ledger`` has one row per tool call a run started, keyed by the idempotency key
(run id, tool call id): ``started`` before the tool runs, ``settled`` with its outcome once it
did. A replica that takes over a run after its owner died replays the settled calls from here
instead of running them again, and knows which calls were in flight.

``runs.cancel_requested_at`` is the truth of a cancel sent to a replica that does not drive the
run: the owner learns it from a bus message at once, or from this column at its next heartbeat
when the message was lost.

Both start empty: runs opened before the upgrade have no ledger rows and no pending cancel.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from runyard.storage.sql.schema import StorableText, json_type

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``tool_ledger``; add ``runs.cancel_requested_at``."""
    op.create_table(
        "tool_ledger",
        sa.Column("run_id", sa.String(255), nullable=False),
        sa.Column("tool_call_id", StorableText, nullable=False),
        sa.Column("tool_name", StorableText, nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("outcome", json_type()),
        sa.Column("updated_at", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("run_id", "tool_call_id"),
    )
    op.add_column("runs", sa.Column("cancel_requested_at", sa.BigInteger, nullable=True))


def downgrade() -> None:
    """Drop ``runs.cancel_requested_at`` and ``tool_ledger``."""
    op.drop_column("runs", "cancel_requested_at")
    op.drop_table("tool_ledger")
