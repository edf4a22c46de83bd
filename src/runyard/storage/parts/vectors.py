"""``VectorStore``: message embeddings and cosine recall, scoped to their owner."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, runtime_checkable

from runyard.storage.records import EmbeddingEntry, EmbeddingHit, MemoryScope

__all__ = ["VectorSearch", "VectorStore"]

VectorSearch = Literal["sqlite-vec", "pgvector", "exact"]


@runtime_checkable
class VectorStore(Protocol):
    """Embeddings of a thread's messages, recalled by similarity within a thread or a user."""

    @property
    def vector_search(self) -> VectorSearch:
        """How ``query_embeddings`` runs: a native index, or exact cosine in Python."""
        ...

    async def save_embeddings(
        self,
        thread_id: str,
        entries: Sequence[EmbeddingEntry],
        /,
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        """Store (or replace, by message id) message embeddings of the thread."""
        ...

    async def query_embeddings(
        self,
        vector: Sequence[float],
        *,
        tenant_id: str,
        resource_id: str,
        thread_id: str | None = None,
        scope: MemoryScope = "thread",
        top_k: int = 5,
    ) -> list[EmbeddingHit]:
        """The ``top_k`` most cosine-similar stored vectors of the same length, best first,
        within the thread (``scope="thread"``, needs ``thread_id``) or all of the resource's
        threads — never another user's."""
        ...
