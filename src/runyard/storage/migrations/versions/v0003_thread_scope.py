"""Thread ids scoped to their owner; JSON kept as written; ids of any length on PostgreSQL.

- The service stores a thread under ``tenant/user/thread`` (``runyard.service.Owner.thread_key``),
  so two users may each have a thread ``t1``. Every thread the service has run on (it has a row
  in ``runs``) moves to that key in every table, and the checkpoints of its runs follow, so an
  existing database keeps working. Other threads (written through the SDK, or only ever opened
  by an SSE listener) keep their ids.
- PostgreSQL: JSON columns become ``json`` (``jsonb`` refuses ``\\u0000`` and re-renders the
  text); id columns become ``text`` (a scoped key outgrows 255 characters; SQLite never had a
  limit). SQLite needs no type change.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
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
_THREAD_ID_TABLES = (
    "messages",
    "working_memory",
    "observations",
    "observation_cursors",
    "plans",
    "embeddings",
    "runs",
    "events",
    "confirmations",
)
_KEY = "t.tenant_id || '/' || t.resource_id || '/' || t.id"

_map = sa.table("thread_scope_map", sa.column("old_id", sa.Text), sa.column("new_id", sa.Text))
_runs = sa.table("runs", sa.column("run_id", sa.Text), sa.column("thread_id", sa.Text))
_checkpoints = sa.table("checkpoints", sa.column("key", sa.Text), sa.column("state", sa.JSON))


def upgrade() -> None:
    """Widen and retype the PostgreSQL columns, then move service threads to scoped keys."""
    if op.get_bind().dialect.name == "postgresql":
        for table in sorted(_JSON_COLUMNS.keys() | _ID_COLUMNS.keys()):
            op.execute(_retype(table))
    _scope_thread_ids()


def _retype(table: str) -> str:
    """One ALTER per table (one rewrite): ids to text, JSON to json."""
    changes = [f"ALTER COLUMN {c} TYPE text" for c in _ID_COLUMNS.get(table, ())]
    changes += [f"ALTER COLUMN {c} TYPE json USING {c}::json" for c in _JSON_COLUMNS.get(table, ())]
    return f"ALTER TABLE {table} {', '.join(changes)}"


def _scope_thread_ids() -> None:
    op.create_table(
        "thread_scope_map",
        sa.Column("old_id", sa.Text, primary_key=True),
        sa.Column("new_id", sa.Text, nullable=False),
    )
    # A key already taken by some thread (only the SDK could have made one) leaves that
    # thread as it is rather than merging two threads.
    op.execute(
        "INSERT INTO thread_scope_map (old_id, new_id) "
        f"SELECT t.id, {_KEY} FROM threads t "
        "WHERE EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = t.id) "
        f"AND NOT EXISTS (SELECT 1 FROM threads o WHERE o.id = {_KEY})"
    )
    for table in _THREAD_ID_TABLES:
        op.execute(_moved(table, "thread_id"))
    op.execute(_moved("threads", "id"))
    _scope_checkpoints()
    op.drop_table("thread_scope_map")


def _moved(table: str, column: str) -> str:
    return (
        f"UPDATE {table} SET {column} = "
        f"(SELECT m.new_id FROM thread_scope_map m WHERE m.old_id = {table}.{column}) "
        f"WHERE {column} IN (SELECT old_id FROM thread_scope_map)"
    )


def _scope_checkpoints() -> None:
    """A suspended run's checkpoint names its thread; it resumes on the scoped key."""
    bind = op.get_bind()
    moved = sa.select(_checkpoints.c.key, _checkpoints.c.state, _runs.c.thread_id).select_from(
        _checkpoints.join(_runs, _runs.c.run_id == _checkpoints.c.key).join(
            _map, _map.c.new_id == _runs.c.thread_id
        )
    )
    for key, state, thread_key in bind.execute(moved).all():
        if isinstance(state, dict) and state.get("thread_id"):
            bind.execute(
                sa.update(_checkpoints)
                .where(_checkpoints.c.key == key)
                .values(state={**state, "thread_id": thread_key})
            )


def downgrade() -> None:
    """Not supported: scoped keys and NUL-carrying JSON have no faithful 0001 form."""
    raise NotImplementedError("revision 0003 cannot be undone; restore a backup taken before it")
