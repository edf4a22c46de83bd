"""The seam between the embeddings table and whatever ranks vectors: a native index or Python.

An index owns how embedding rows are written (pgvector adds its own column) and may keep a
side structure up to date after each commit (sqlite-vec's quantized table). The embeddings
table stays the source of truth; every ranking is checked against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncEngine

from runyard.storage.protocol import VectorSearch
from runyard.storage.records import EmbeddingHit
from runyard.storage.sql.connection import SqlConnection

__all__ = ["NativeVectorsUnavailable", "VectorIndex", "VectorQuery"]


class NativeVectorsUnavailable(Exception):
    """A database's native vector search (sqlite-vec, pgvector) cannot be used here; the message
    says why and what to do."""


@dataclass(frozen=True, slots=True)
class VectorQuery:
    """A scoped top-k query; ``thread_id`` None means every thread of the resource."""

    vector: Sequence[float]
    tenant_id: str
    resource_id: str
    thread_id: str | None
    top_k: int


class VectorIndex(Protocol):
    """Writes and ranks the embeddings table's rows."""

    @property
    def name(self) -> VectorSearch:
        """What does the ranking."""
        ...

    async def prepare(self, engine: AsyncEngine, dims: set[int]) -> None:
        """Before a write of vectors of these lengths, outside its transaction."""
        ...

    async def write(self, conn: SqlConnection, rows: Sequence[dict[str, Any]]) -> None:
        """Upsert embedding rows (the table's columns) inside the caller's transaction."""
        ...

    async def after_write(self, thread_id: str, message_ids: Sequence[str]) -> None:
        """After the write committed."""
        ...

    async def after_delete(self, seqs: Sequence[int]) -> None:
        """After rows with these ``seq`` keys were deleted and committed."""
        ...

    async def query(self, engine: AsyncEngine, query: VectorQuery) -> list[EmbeddingHit]:
        """The best ``top_k`` rows of the same length within the query's scope."""
        ...

    async def close(self) -> None:
        """Release anything the index holds open."""
        ...
