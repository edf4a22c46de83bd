"""sqlite-vec: cosine ranking inside SQLite, on a side connection that can load extensions.

Many Pythons (pyenv builds among them) compile the stdlib ``sqlite3`` without extension
loading, and ``aiosqlite`` sits on top of it. So queries run on a separate connection to the
same file: the stdlib one when it can load extensions, else ``apsw``. WAL lets that reader
see every committed write. Rows stay in the ordinary embeddings table (written through
SQLAlchemy like everything else); sqlite-vec's ``vec_distance_cosine`` ranks them in C.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from runyard.storage.protocol import VectorSearch
from runyard.storage.records import EmbeddingHit
from runyard.storage.sql.engine import BUSY_TIMEOUT_MS
from runyard.storage.sql.vector_index import EmbeddingRow, VectorQuery
from runyard.storage.vectors import pack_vector

__all__ = ["SqliteVecIndex"]

logger = logging.getLogger("runyard.storage")


def _stdlib_connection(path: str) -> Any:
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    try:
        conn.enable_load_extension(True)
        import sqlite_vec

        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    except BaseException:
        conn.close()
        raise
    return conn


def _apsw_connection(path: str) -> Any:
    import apsw
    import sqlite_vec

    conn = apsw.Connection(path)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.enable_load_extension(False)
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    return conn


def _connect(path: str) -> Any:
    """A connection with sqlite-vec loaded, through whichever module can load it."""
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return _stdlib_connection(path)
    return _apsw_connection(path)


class SqliteVecIndex:
    """Ranks with sqlite-vec on a dedicated thread and connection."""

    def __init__(self, connection: Any, executor: ThreadPoolExecutor) -> None:
        self._conn = connection
        self._executor = executor

    @classmethod
    async def open(cls, path: str) -> SqliteVecIndex | None:
        """The index, or None (logged) when sqlite-vec cannot be loaded here."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="runyard-sqlite-vec")
        loop = asyncio.get_running_loop()
        try:
            conn = await loop.run_in_executor(executor, _connect, path)
            await loop.run_in_executor(executor, _probe, conn)
        except Exception as exc:
            executor.shutdown(wait=False)
            logger.warning(
                "sqlite-vec cannot be loaded (%s: %s); install runyard[vectors] (sqlite-vec, "
                "apsw). Semantic recall ranks by exact cosine in Python instead",
                type(exc).__name__,
                exc,
            )
            return None
        return cls(conn, executor)

    @property
    def name(self) -> VectorSearch:
        """Always ``"sqlite-vec"``."""
        return "sqlite-vec"

    async def prepare(self, engine: AsyncEngine, dims: set[int]) -> None:
        """Nothing to build: ranking reads the embeddings table itself."""

    async def on_write(self, conn: AsyncConnection, rows: Sequence[EmbeddingRow]) -> None:
        """Nothing to mirror."""

    async def query(self, engine: AsyncEngine, query: VectorQuery) -> list[EmbeddingHit]:
        """Nearest by cosine distance within the owner's rows of the same length."""
        sql = (
            "SELECT thread_id, message_id, vec_distance_cosine(vector, ?) AS distance "
            "FROM embeddings WHERE tenant_id = ? AND resource_id = ? AND dims = ?"
        )
        params: list[Any] = [
            pack_vector(query.vector),
            query.tenant_id,
            query.resource_id,
            len(query.vector),
        ]
        if query.thread_id is not None:
            sql += " AND thread_id = ?"
            params.append(query.thread_id)
        sql += " ORDER BY distance LIMIT ?"
        params.append(query.top_k)
        loop = asyncio.get_running_loop()
        rows = await loop.run_in_executor(self._executor, _fetch, self._conn, sql, params)
        return [EmbeddingHit(m, t, 1.0 - float(d)) for t, m, d in rows]

    async def close(self) -> None:
        """Close the side connection and its thread."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._executor, self._conn.close)
        self._executor.shutdown(wait=True)


def _probe(conn: Any) -> None:
    """Fail now, not at the first query, if the extension did not load."""
    _fetch(conn, "SELECT vec_version()", [])


def _fetch(conn: Any, sql: str, params: Sequence[Any]) -> list[Any]:
    return list(conn.execute(sql, tuple(params)).fetchall())
