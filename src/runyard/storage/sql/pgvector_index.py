"""pgvector: cosine ranking inside PostgreSQL, with an HNSW index per vector length.

The embeddings table keeps its portable float32 column; when ``CREATE EXTENSION vector``
works, an extra ``embedding vector`` column holds the same vector and is what queries rank.
Vectors of any length share that column; a partial HNSW index per length
(``WHERE dims = n``) serves resource-wide queries. Thread-scoped queries rank the thread's
rows exactly (few rows, found by the thread's key), which is both faster and exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from runyard.storage.migrations import lock_schema
from runyard.storage.protocol import VectorSearch
from runyard.storage.records import EmbeddingHit
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.engine import read, schema_write, write
from runyard.storage.sql.exact_vectors import UPDATED_COLUMNS
from runyard.storage.sql.schema import embeddings
from runyard.storage.sql.vector_index import NativeVectorsUnavailable, VectorQuery
from runyard.storage.vectors import unpack_vector

__all__ = ["PgVectorIndex"]


# pgvector's HNSW indexes take at most this many dimensions; longer vectors are ranked by scan.
_HNSW_MAX_DIMS = 2000
_BACKFILL_BATCH = 1000
_COLUMNS = ("thread_id", "message_id", *UPDATED_COLUMNS)
_UPSERT = text(
    f"INSERT INTO embeddings ({', '.join(_COLUMNS)}, embedding) "
    f"VALUES ({', '.join(':' + c for c in _COLUMNS)}, CAST(:embedding AS vector)) "
    "ON CONFLICT (thread_id, message_id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in (*UPDATED_COLUMNS, "embedding"))
).bindparams(*(bindparam(c, type_=embeddings.c[c].type) for c in _COLUMNS))  # text as stored


def _literal(blob: bytes) -> str:
    """pgvector's text form, ``[1.0,2.0]``, of a packed float32 vector."""
    return "[" + ",".join(repr(x) for x in unpack_vector(blob)) + "]"


class PgVectorIndex:
    """Ranks with pgvector's ``<=>`` (cosine distance) operator."""

    def __init__(self, *, iterative_scan: bool) -> None:
        self._iterative_scan = iterative_scan
        self._indexed_dims: set[int] = set()

    @classmethod
    async def open(cls, engine: AsyncEngine) -> PgVectorIndex:
        """The index; ``NativeVectorsUnavailable`` when this database cannot load pgvector."""
        try:
            async with schema_write(engine) as conn:
                await conn.run_sync(lock_schema)
                await conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
                await conn.execute(
                    text("ALTER TABLE embeddings ADD COLUMN IF NOT EXISTS embedding vector")
                )
                version = await conn.scalar(
                    text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
                )
        except DBAPIError as exc:
            why = str(exc.orig).strip().splitlines()[0]
            raise NativeVectorsUnavailable(
                f"pgvector is not available in this PostgreSQL database ({why})"
            ) from exc
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
                async with schema_write(engine) as conn:
                    await conn.run_sync(lock_schema)
                    await conn.execute(text(_index_ddl(n)))
            self._indexed_dims.add(n)

    async def write(self, conn: SqlConnection, rows: Sequence[dict[str, Any]]) -> None:
        """Upsert rows with their ``embedding`` column in the same statement."""
        await conn.execute(_UPSERT, [{**r, "embedding": _literal(r["vector"])} for r in rows])

    async def after_write(self, thread_id: str, message_ids: Sequence[str]) -> None:
        """Nothing to do: the row carries its vector."""

    async def after_delete(self, seqs: Sequence[int]) -> None:
        """Nothing to do: index entries go with their rows."""

    async def query(self, engine: AsyncEngine, query: VectorQuery) -> list[EmbeddingHit]:
        """Nearest by cosine distance, scoped by owner (and thread) in the same statement."""
        n = len(query.vector)
        scope = "tenant_id = :tenant AND resource_id = :resource AND dims = :dims"
        if query.thread_id is None:
            distance = f"embedding::vector({n}) <=> CAST(:q AS vector({n}))"  # the HNSW expression
        else:
            scope += " AND thread_id = :thread"
            distance = "embedding <=> CAST(:q AS vector)"  # matches no HNSW index: exact
        sql = (
            f"SELECT thread_id, message_id, {distance} AS distance FROM embeddings "
            f"WHERE {scope} ORDER BY {distance} LIMIT :k"
        )
        params = {
            "q": "[" + ",".join(repr(float(x)) for x in query.vector) + "]",
            "tenant": query.tenant_id,
            "resource": query.resource_id,
            "dims": n,
            "thread": query.thread_id,
            "k": query.top_k,
        }
        async with read(engine) as conn:
            if self._iterative_scan:
                # Keep walking the graph until k rows pass the owner filter.
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
    missing = text("SELECT seq, vector FROM embeddings WHERE embedding IS NULL LIMIT :n")
    fill = text("UPDATE embeddings SET embedding = CAST(:v AS vector) WHERE seq = :seq")
    while True:
        async with write(engine) as conn:
            rows = (await conn.execute(missing, {"n": _BACKFILL_BATCH})).all()
            if not rows:
                return
            await conn.execute(fill, [{"v": _literal(r.vector), "seq": r.seq} for r in rows])
