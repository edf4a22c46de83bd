"""INSERT … ON CONFLICT for both dialects (SQLite and PostgreSQL spell it the same way)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert

__all__ = ["insert_ignore", "upsert"]


def _insert(dialect: str, table: Table) -> sqlite.Insert | postgresql.Insert:
    return postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)


def upsert(dialect: str, table: Table, keys: Sequence[str], columns: Sequence[str]) -> Insert:
    """INSERT … ON CONFLICT (keys) DO UPDATE SET columns = the new values."""
    stmt = _insert(dialect, table)
    return stmt.on_conflict_do_update(
        index_elements=list(keys), set_={c: stmt.excluded[c] for c in columns}
    )


def insert_ignore(dialect: str, table: Table) -> Insert:
    """INSERT … ON CONFLICT DO NOTHING."""
    return _insert(dialect, table).on_conflict_do_nothing()
