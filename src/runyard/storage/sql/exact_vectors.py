"""The fallback vector index: exact cosine in Python over the scoped rows.

Correct everywhere, fast enough for thousands of vectors per user; the native indexes
(sqlite-vec, pgvector) take over where the database can load them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.ext.asyncio import AsyncEngine

from runyard.storage.protocol import VectorSearch
from runyard.storage.records import EmbeddingHit
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.engine import read
from runyard.storage.sql.schema import embeddings
from runyard.storage.sql.upserts import upsert
from runyard.storage.sql.vector_index import VectorQuery
from runyard.storage.vectors import top_k_exact, unpack_vector

__all__ = ["UPDATED_COLUMNS", "ExactVectorIndex", "scope_filter", "upsert_embeddings"]

logger = logging.getLogger("runyard.storage")

UPDATED_COLUMNS = ("tenant_id", "resource_id", "model", "text", "dims", "vector", "created_at")


def scope_filter(query: VectorQuery) -> list[ColumnElement[bool]]:
    """The WHERE terms that keep a query inside its owner's rows of the right length."""
    terms = [
        embeddings.c.tenant_id == query.tenant_id,
        embeddings.c.resource_id == query.resource_id,
        embeddings.c.dims == len(query.vector),
    ]
    if query.thread_id is not None:
        terms.append(embeddings.c.thread_id == query.thread_id)
    return terms


async def upsert_embeddings(conn: SqlConnection, rows: Sequence[dict[str, Any]]) -> None:
    """Insert rows, replacing any with the same (thread, message) in place (keeping ``seq``)."""
    stmt = upsert(conn.dialect.name, embeddings, ["thread_id", "message_id"], UPDATED_COLUMNS)
    await conn.execute(stmt, list(rows))


class ExactVectorIndex:
    """Ranks by reading the scoped vectors and computing cosine similarity in Python.

    ``instead_of``: why the database's native vector search is not used, said once, at the
    first vector written or searched: a server that never recalls does not warn at every start
    (nor does ``runyard keys``) about an extension it does not need."""

    def __init__(self, instead_of: str | None = None) -> None:
        self._instead_of = instead_of

    def _say_why_once(self) -> None:
        if self._instead_of is not None:
            logger.warning(
                "%s: semantic recall ranks by exact cosine in Python over each user's rows",
                self._instead_of,
            )
            self._instead_of = None

    @property
    def name(self) -> VectorSearch:
        """Always ``"exact"``."""
        return "exact"

    async def prepare(self, engine: AsyncEngine, dims: set[int]) -> None:
        """Nothing to build."""

    async def write(self, conn: SqlConnection, rows: Sequence[dict[str, Any]]) -> None:
        """Plain upsert into the embeddings table."""
        self._say_why_once()
        await upsert_embeddings(conn, rows)

    async def after_write(self, thread_id: str, message_ids: Sequence[str]) -> None:
        """Nothing to maintain."""

    async def after_delete(self, seqs: Sequence[int]) -> None:
        """Nothing to maintain."""

    async def query(self, engine: AsyncEngine, query: VectorQuery) -> list[EmbeddingHit]:
        """Exact top-k within the query's scope."""
        self._say_why_once()
        stmt = select(embeddings.c.thread_id, embeddings.c.message_id, embeddings.c.vector).where(
            *scope_filter(query)
        )
        async with read(engine) as conn:
            rows = (await conn.execute(stmt)).all()
        candidates = (((r.thread_id, r.message_id), unpack_vector(r.vector)) for r in rows)
        best = top_k_exact(query.vector, candidates, query.top_k)
        return [
            EmbeddingHit(message_id, thread_id, score) for (thread_id, message_id), score in best
        ]

    async def close(self) -> None:
        """Nothing to release."""
