"""JSON kept as written; ids of any length on PostgreSQL.

- PostgreSQL: JSON columns become ``json`` (``jsonb`` refuses ``\\u0000`` and re-renders the
  text); id columns become ``text`` (a scoped key outgrows 255 characters; SQLite never had a
  limit). SQLite needs no type change.

Revision ID: 0003
Revises: 0001
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0001"
branch_labels = None
depends_on = None

_JSON_COLUMNS = {
    "threads": ("metadata",),
    "messages": ("data",),
    "observations": ("metadata",),
    "plans": ("data",),
    "events": ("data",),
    "confirmations": ("payload", "answer"),
    "checkpoints": ("state",),
}
_ID_COLUMNS = {
    "threads": ("id", "tenant_id", "resource_id"),
    "messages": ("thread_id", "id"),
    "working_memory": ("tenant_id", "resource_id", "thread_id"),
    "observations": ("thread_id", "id", "parent_id"),
    "observation_cursors": ("thread_id", "message_id"),
    "plans": ("thread_id",),
    "embeddings": ("thread_id", "message_id", "tenant_id", "resource_id", "model"),
    "runs": ("thread_id", "tenant_id"),
    "events": ("thread_id", "run_id"),
    "confirmations": ("request_id", "thread_id", "run_id", "tool_call_id"),
    "checkpoints": ("key",),
}


def upgrade() -> None:
    """Widen and retype the PostgreSQL columns."""
    if op.get_bind().dialect.name == "postgresql":
        for table in sorted(_JSON_COLUMNS.keys() | _ID_COLUMNS.keys()):
            op.execute(_retype(table))


def _retype(table: str) -> str:
    """One ALTER per table (one rewrite): ids to text, JSON to json."""
    changes = [f"ALTER COLUMN {c} TYPE text" for c in _ID_COLUMNS.get(table, ())]
    changes += [f"ALTER COLUMN {c} TYPE json USING {c}::json" for c in _JSON_COLUMNS.get(table, ())]
    return f"ALTER TABLE {table} {', '.join(changes)}"


def downgrade() -> None:
    """Not supported: scoped keys and NUL-carrying JSON have no faithful 0001 form."""
    raise NotImplementedError("revision 0003 cannot be undone; restore a backup taken before it")
