"""Embeddings of the in-memory store, ranked by exact cosine."""

from __future__ import annotations

from collections.abc import Sequence

from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import VectorSearch, VectorStore
from runyard.storage.records import EmbeddingEntry, EmbeddingHit, MemoryScope
from runyard.storage.scopes import thread_key
from runyard.storage.vectors import top_k_exact

__all__ = ["VectorsPart"]


class VectorsPart(MemoryState, VectorStore):
    """Message embeddings per thread, recalled within the thread or the owner's threads."""

    @property
    def vector_search(self) -> VectorSearch:
        """Exact cosine in Python."""
        return "exact"

    async def save_embeddings(
        self,
        thread_id: str,
        entries: Sequence[EmbeddingEntry],
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        self._claim(thread_id, tenant_id, resource_id)
        rows = self._embeddings.setdefault(thread_id, {})
        for entry in entries:
            rows[entry.message_id] = (tuple(entry.vector), entry.text, entry.model)

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
        key = thread_key(scope, thread_id)
        threads = [
            t.id
            for t in self._threads.values()
            if (t.tenant_id, t.resource_id) == (tenant_id, resource_id) and key in ("", t.id)
        ]
        candidates = [
            ((tid, message_id), row[0])
            for tid in threads
            for message_id, row in self._embeddings.get(tid, {}).items()
            if len(row[0]) == len(vector)
        ]
        best = top_k_exact(vector, candidates, top_k)
        return [EmbeddingHit(message_id, tid, score) for (tid, message_id), score in best]
