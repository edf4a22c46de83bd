"""pgvector: cosine ranking inside PostgreSQL, with an HNSW index per vector length.

The embeddings table keeps its portable float32 column; when ``CREATE EXTENSION vector``
works, an extra ``embedding vector`` column mirrors it and is what queries rank. Vectors of
any length share that column; a partial HNSW index per length (``WHERE dims = n``) makes
each length's queries fast. Indexes are built the first time a length is stored.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from runyard.storage.migrations import lock_schema
from runyard.storage.protocol import VectorSearch
from runyard.storage.records import EmbeddingHit
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.vector_index import EmbeddingRow, VectorQuery
from runyard.storage.vectors import unpack_vector

__all__ = ["PgVectorIndex"]

logger = logging.getLogger("runyard.storage")

# pgvector's HNSW indexes take at most this many dimensions; longer vectors are ranked by scan.
_HNSW_MAX_DIMS = 2000
_BACKFILL_BATCH = 1000


def _literal(vector: Sequence[float]) -> str:
    """pgvector's text form, ``[1.0,2.0]``."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


class PgVectorIndex:
    """Ranks with pgvector's ``<=>`` (cosine distance) operator."""

    def __init__(self, *, iterative_scan: bool) -> None:
        self._iterative_scan = iterative_scan
        self._indexed_dims: set[int] = set()

    @classmethod
    async def open(cls, engine: AsyncEngine) -> PgVectorIndex | None:
        """The index, or None (logged) when this database cannot load pgvector."""
        try:
            async with write(engine) as conn:
                await conn.run_sync(lock_schema)
                await conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
                await conn.execute(
                    text("ALTER TABLE embeddings ADD COLUMN IF NOT EXISTS embedding vector")
                )
                version = (
                    await conn.execute(
                        text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
                    )
                ).scalar_one()
        except DBAPIError as exc:
            logger.warning(
                "pgvector is not available in this PostgreSQL database (%s); semantic recall "
                "ranks by exact cosine in Python over each user's rows instead",
                str(exc.orig).strip().splitlines()[0],
            )
            return None
        await _backfill(engine)
        major, minor = (int(part) for part in str(version).split(".")[:2])
        return cls(iterative_scan=(major, minor) >= (0, 8))

    @property
    def name(self) -> VectorSearch:
        """Always ``"pgvector"``."""
        return "pgvector"

    async def prepare(self, engine: AsyncEngine, dims: set[int]) -> None:
        """Build the HNSW index of each new vector length (once per length and database)."""
        for n in sorted(dims - self._indexed_dims):
            if n <= _HNSW_MAX_DIMS:
                async with write(engine) as conn:
                    await conn.run_sync(lock_schema)
                    await conn.execute(text(_index_ddl(n)))
            self._indexed_dims.add(n)

    async def on_write(self, conn: AsyncConnection, rows: Sequence[EmbeddingRow]) -> None:
        """Mirror the rows' vectors into the ``embedding`` column, in the same transaction."""
        await _mirror(conn, rows)

    async def query(self, engine: AsyncEngine, query: VectorQuery) -> list[EmbeddingHit]:
        """Nearest by cosine distance, scoped by owner (and thread) in the same statement."""
        n = len(query.vector)
        distance = f"embedding::vector({n}) <=> CAST(:q AS vector({n}))"
        scope = "tenant_id = :tenant AND resource_id = :resource AND dims = :dims"
        if query.thread_id is not None:
            scope += " AND thread_id = :thread"
        sql = (
            f"SELECT thread_id, message_id, {distance} AS distance FROM embeddings "
            f"WHERE {scope} ORDER BY {distance} LIMIT :k"
        )
        params = {
            "q": _literal(query.vector),
            "tenant": query.tenant_id,
            "resource": query.resource_id,
            "dims": n,
            "thread": query.thread_id,
            "k": query.top_k,
        }
        async with read(engine) as conn:
            if self._iterative_scan:
                # Keep scanning the graph until k rows pass the owner filter.
                await conn.execute(text("SET LOCAL hnsw.iterative_scan = strict_order"))
            await conn.execute(text(f"SET LOCAL hnsw.ef_search = {max(40, query.top_k)}"))
            rows = (await conn.execute(text(sql), params)).all()
        return [EmbeddingHit(r.message_id, r.thread_id, 1.0 - float(r.distance)) for r in rows]

    async def close(self) -> None:
        """Nothing to release: queries use the store's engine."""


def _index_ddl(n: int) -> str:
    return (
        f"CREATE INDEX IF NOT EXISTS embeddings_hnsw_{n} ON embeddings "
        f"USING hnsw ((embedding::vector({n})) vector_cosine_ops) WHERE dims = {n}"
    )


async def _backfill(engine: AsyncEngine) -> None:
    """Fill ``embedding`` for rows stored before pgvector was installed."""
    select_missing = text(
        "SELECT thread_id, message_id, vector FROM embeddings WHERE embedding IS NULL LIMIT :n"
    )
    while True:
        async with write(engine) as conn:
            rows = (await conn.execute(select_missing, {"n": _BACKFILL_BATCH})).all()
            if not rows:
                return
            await _mirror(
                conn,
                [EmbeddingRow(r.thread_id, r.message_id, unpack_vector(r.vector)) for r in rows],
            )


async def _mirror(conn: AsyncConnection, rows: Sequence[EmbeddingRow]) -> None:
    await conn.execute(
        text(
            "UPDATE embeddings SET embedding = CAST(:v AS vector) "
            "WHERE thread_id = :t AND message_id = :m"
        ),
        [{"v": _literal(r.vector), "t": r.thread_id, "m": r.message_id} for r in rows],
    )
