"""A synchronous SQLite connection with sqlite-vec loaded, through whichever module can.

The stdlib ``sqlite3`` is used when this Python allows extension loading; otherwise
``apsw`` (the ``runyard[vectors]`` extra). Both expose ``execute(sql, params)``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from runyard.storage.sql.engine import BUSY_TIMEOUT_MS

__all__ = ["connect", "fetch", "transaction"]


def _stdlib(path: str) -> Any:
    import sqlite_vec

    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except BaseException:
        conn.close()
        raise
    return conn


def _apsw(path: str) -> Any:
    import apsw
    import sqlite_vec

    conn = apsw.Connection(path)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.enable_load_extension(False)
    return conn


def connect(path: str) -> Any:
    """Open ``path`` with sqlite-vec loaded; raises if no module here can load it."""
    conn = _stdlib(path) if hasattr(sqlite3.Connection, "enable_load_extension") else _apsw(path)
    fetch(conn, f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}", [])
    fetch(conn, "SELECT vec_version()", [])
    return conn


def fetch(conn: Any, sql: str, params: Sequence[Any]) -> list[Any]:
    """Run one statement and return all its rows."""
    return list(conn.execute(sql, tuple(params)).fetchall())


@contextmanager
def transaction(conn: Any) -> Iterator[None]:
    """A write transaction that takes the lock up front (so it waits, never deadlocks)."""
    fetch(conn, "BEGIN IMMEDIATE", [])
    try:
        yield
    except BaseException:
        fetch(conn, "ROLLBACK", [])
        raise
    fetch(conn, "COMMIT", [])
