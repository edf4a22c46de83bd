"""INSERT … ON CONFLICT for both dialects (SQLite and PostgreSQL spell it the same way)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from sqlalchemy import Table
from sqlalchemy.dialects import sqlite
from sqlalchemy.sql.dml import Insert

from runyard.storage.sql.direct_statements import prepared

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql

__all__ = ["insert_ignore", "insert_of", "upsert"]


def insert_of(dialect: str, table: Table) -> sqlite.Insert | postgresql.Insert:
    """The dialect's INSERT, which has ``on_conflict_do_update``/``_nothing``."""
    if dialect == "postgresql":
        # Loaded by a PostgreSQL store only (~50 ms of CPU a SQLite process does not pay).
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(table)
    return sqlite.insert(table)


def upsert(dialect: str, table: Table, keys: Sequence[str], columns: Sequence[str]) -> Insert:
    """INSERT … ON CONFLICT (keys) DO UPDATE SET columns = the new values.

    Built once per shape and shared: a statement is immutable, and building one (its ``excluded``
    columns, then its cache key) cost more than SQLite took to run it."""
    return _upsert(dialect, table, tuple(keys), tuple(columns))


@cache
def _upsert(dialect: str, table: Table, keys: tuple[str, ...], columns: tuple[str, ...]) -> Insert:
    stmt = insert_of(dialect, table)
    return prepared(
        stmt.on_conflict_do_update(
            index_elements=list(keys), set_={c: stmt.excluded[c] for c in columns}
        )
    )


@cache
def insert_ignore(dialect: str, table: Table) -> Insert:
    """INSERT … ON CONFLICT DO NOTHING (built once per table, as ``upsert``)."""
    return prepared(insert_of(dialect, table).on_conflict_do_nothing())
