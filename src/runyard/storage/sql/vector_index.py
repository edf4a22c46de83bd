"""The seam between the embeddings table and whatever ranks vectors: a native index or Python."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from runyard.storage.protocol import VectorSearch
from runyard.storage.records import EmbeddingHit

__all__ = ["EmbeddingRow", "VectorIndex", "VectorQuery"]


@dataclass(frozen=True, slots=True)
class EmbeddingRow:
    """A stored embedding's key and vector, as the index sees it."""

    thread_id: str
    message_id: str
    vector: Sequence[float]


@dataclass(frozen=True, slots=True)
class VectorQuery:
    """A scoped top-k query; ``thread_id`` None means every thread of the resource."""

    vector: Sequence[float]
    tenant_id: str
    resource_id: str
    thread_id: str | None
    top_k: int


class VectorIndex(Protocol):
    """Ranks the embeddings table's rows. The table stays the source of truth."""

    @property
    def name(self) -> VectorSearch:
        """What does the ranking."""
        ...

    async def prepare(self, engine: AsyncEngine, dims: set[int]) -> None:
        """Called before a write of vectors of these lengths, outside its transaction."""
        ...

    async def on_write(self, conn: AsyncConnection, rows: Sequence[EmbeddingRow]) -> None:
        """Called inside the transaction that upserted ``rows`` into the embeddings table."""
        ...

    async def query(self, engine: AsyncEngine, query: VectorQuery) -> list[EmbeddingHit]:
        """The best ``top_k`` rows of the same length within the query's scope."""
        ...

    async def close(self) -> None:
        """Release anything the index holds open."""
        ...
