"""sqlite-vec: cosine ranking inside SQLite, on a side connection that can load extensions.

Many Pythons (pyenv builds among them) compile the stdlib ``sqlite3`` without extension
loading, and ``aiosqlite`` sits on top of it. So sqlite-vec runs on a second connection to
the same file: the stdlib one when it can load extensions, else ``apsw``; WAL lets it see
every committed write. Rows live in the ordinary embeddings table, written through
SQLAlchemy like everything else.

Ranking: a thread's rows, and a user's rows when there are at most ``EXACT_LIMIT`` of them,
are ranked exactly with ``vec_distance_cosine``. Beyond that, for vector lengths divisible
by 8, a side table (``vec0``, partitioned by owner) keeps each vector's sign bits; a
Hamming-distance scan over those bits picks a candidate pool (20 x top_k, at least 100)
which is then ranked exactly: approximate, like any ANN index, and about 15 ms for
100,000 vectors of 384 dimensions. The side table is brought up to date after every commit
and reconciled with the embeddings table on open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from runyard.storage.protocol import VectorSearch
from runyard.storage.records import EmbeddingHit
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.exact_vectors import upsert_embeddings
from runyard.storage.sql.sqlite_vec_connection import connect, fetch, transaction
from runyard.storage.sql.vector_index import NativeVectorsUnavailable, VectorQuery
from runyard.storage.vectors import pack_vector

__all__ = ["SqliteVecIndex"]


_OWNER = "tenant_id || char(31) || resource_id"
_QUANTIZED = "vec_quantize_binary(vec_f32(vector))"
_MAX_POOL = 4096  # vec0's largest k
EXACT_LIMIT = 2000


def _bits_table(dims: int) -> str:
    return f"embeddings_bits_{dims}"


class SqliteVecIndex:
    """Ranks with sqlite-vec on a dedicated thread and connection."""

    def __init__(self, connection: Any, executor: ThreadPoolExecutor) -> None:
        self._conn = connection
        self._executor = executor

    @classmethod
    async def open(cls, path: str) -> SqliteVecIndex:
        """The index, reconciled with the table; ``NativeVectorsUnavailable`` when sqlite-vec
        cannot load."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="runyard-sqlite-vec")
        loop = asyncio.get_running_loop()
        try:
            conn = await loop.run_in_executor(executor, connect, path)
        except Exception as exc:
            executor.shutdown(wait=False)
            raise NativeVectorsUnavailable(
                f"sqlite-vec cannot be loaded ({type(exc).__name__}: {exc}); install "
                "runyard[vectors] (sqlite-vec, apsw)"
            ) from exc
        index = cls(conn, executor)
        await index._run(_reconcile, conn)
        return index

    @property
    def name(self) -> VectorSearch:
        """Always ``"sqlite-vec"``."""
        return "sqlite-vec"

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def prepare(self, engine: AsyncEngine, dims: set[int]) -> None:
        """Nothing to build before a write."""

    async def write(self, conn: SqlConnection, rows: Sequence[dict[str, Any]]) -> None:
        """Plain upsert into the embeddings table (the side table follows after commit)."""
        await upsert_embeddings(conn, rows)

    async def after_write(self, thread_id: str, message_ids: Sequence[str]) -> None:
        """Re-quantize the written rows into their side tables."""
        await self._run(_index_rows, self._conn, thread_id, list(message_ids))

    async def after_delete(self, seqs: Sequence[int]) -> None:
        """Drop deleted rows from the side tables."""
        if seqs:
            await self._run(_forget, self._conn, list(seqs))

    async def query(self, engine: AsyncEngine, query: VectorQuery) -> list[EmbeddingHit]:
        """Exact within a thread; quantized pool then exact rerank across a user's threads."""
        rows = await self._run(_rank, self._conn, query)
        return [EmbeddingHit(m, t, 1.0 - float(d)) for t, m, d in rows]

    async def close(self) -> None:
        """Close the side connection and its thread."""
        await self._run(self._conn.close)
        self._executor.shutdown(wait=True)


def _tables(conn: Any) -> set[str]:
    """The side tables themselves, not the shadow tables vec0 keeps beside them."""
    rows = fetch(
        conn,
        "SELECT name FROM sqlite_master WHERE name LIKE 'embeddings_bits_%' "
        "AND sql LIKE 'CREATE VIRTUAL TABLE%'",
        [],
    )
    return {name for (name,) in rows}


def _ensure_table(conn: Any, dims: int) -> str:
    table = _bits_table(dims)
    fetch(
        conn,
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} "
        f"USING vec0(owner text partition key, bits bit[{dims}], chunk_size=4096)",
        [],
    )
    return table


def _reconcile(conn: Any) -> None:
    """Make every side table hold exactly the embeddings table's rows of its length."""
    for (dims,) in fetch(conn, "SELECT DISTINCT dims FROM embeddings WHERE dims % 8 = 0", []):
        with transaction(conn):
            table = _ensure_table(conn, dims)
            fetch(
                conn,
                f"DELETE FROM {table} WHERE rowid NOT IN "
                "(SELECT seq FROM embeddings WHERE dims = ?)",
                [dims],
            )
            _insert_bits(
                conn, table, f"dims = ? AND seq NOT IN (SELECT rowid FROM {table})", [dims]
            )


def _index_rows(conn: Any, thread_id: str, message_ids: list[str]) -> None:
    marks = ",".join("?" * len(message_ids))
    rows = fetch(
        conn,
        f"SELECT seq, dims FROM embeddings WHERE thread_id = ? AND message_id IN ({marks}) "
        "AND dims % 8 = 0",
        [thread_id, *message_ids],
    )
    by_dims: dict[int, list[int]] = {}
    for seq, dims in rows:
        by_dims.setdefault(dims, []).append(seq)
    for dims, seqs in by_dims.items():
        with transaction(conn):
            table = _ensure_table(conn, dims)
            seq_marks = ",".join("?" * len(seqs))
            fetch(conn, f"DELETE FROM {table} WHERE rowid IN ({seq_marks})", seqs)
            _insert_bits(conn, table, f"seq IN ({seq_marks})", seqs)


def _insert_bits(conn: Any, table: str, where: str, params: list[Any]) -> None:
    """Quantize the matching embeddings rows into ``table``.

    Two steps, not INSERT ... SELECT: SQLite may drop the bit-vector subtype of a value that
    passes through a temporary table, and vec0 would then read the bits as float32.
    """
    rows = fetch(conn, f"SELECT seq, {_OWNER}, {_QUANTIZED} FROM embeddings WHERE {where}", params)
    conn.cursor().executemany(
        f"INSERT INTO {table}(rowid, owner, bits) VALUES (?, ?, vec_bit(?))", rows
    )


def _forget(conn: Any, seqs: list[int]) -> None:
    marks = ",".join("?" * len(seqs))
    for table in _tables(conn):
        with transaction(conn):
            fetch(conn, f"DELETE FROM {table} WHERE rowid IN ({marks})", seqs)


def _rank(conn: Any, query: VectorQuery) -> list[Any]:
    dims = len(query.vector)
    blob = pack_vector(query.vector)
    owner = [query.tenant_id, query.resource_id, dims]
    sql = "SELECT thread_id, message_id, vec_distance_cosine(vector, ?) AS distance FROM embeddings"
    if query.thread_id is not None:
        where = " WHERE tenant_id = ? AND resource_id = ? AND dims = ? AND thread_id = ?"
        params: list[Any] = [blob, *owner, query.thread_id]
    elif _bits_table(dims) in _tables(conn) and _more_than(conn, owner, EXACT_LIMIT):
        pool = _candidates(conn, query, blob)
        # "+" keeps SQLite on the seq key for the pool instead of the owner index.
        where = (
            f" WHERE seq IN ({','.join('?' * len(pool))})"
            " AND +tenant_id = ? AND +resource_id = ? AND +dims = ?"
        )
        params = [blob, *pool, *owner]
    else:
        where = " WHERE tenant_id = ? AND resource_id = ? AND dims = ?"
        params = [blob, *owner]
    return fetch(conn, sql + where + " ORDER BY distance, seq LIMIT ?", [*params, query.top_k])


def _more_than(conn: Any, owner: list[Any], limit: int) -> bool:
    """Whether the owner has more than ``limit`` vectors of this length (reads at most limit+1)."""
    rows = fetch(
        conn,
        "SELECT 1 FROM embeddings WHERE tenant_id = ? AND resource_id = ? AND dims = ? "
        "LIMIT 1 OFFSET ?",
        [*owner, limit],
    )
    return bool(rows)


def _candidates(conn: Any, query: VectorQuery, blob: bytes) -> list[int]:
    """The seqs of the owner's rows nearest by Hamming distance of sign bits."""
    pool = min(_MAX_POOL, max(20 * query.top_k, 100))
    rows = fetch(
        conn,
        f"SELECT rowid FROM {_bits_table(len(query.vector))} "
        "WHERE bits MATCH vec_quantize_binary(vec_f32(?)) AND k = ? AND owner = ?",
        [blob, pool, f"{query.tenant_id}\x1f{query.resource_id}"],
    )
    return [rowid for (rowid,) in rows]
