"""Embeddings of ``SqlStore``: rows in the embeddings table, written and ranked by the index."""

from __future__ import annotations

from collections.abc import Sequence

from runyard.ids import now_ms
from runyard.storage.records import EmbeddingEntry, EmbeddingHit, MemoryScope
from runyard.storage.scopes import thread_key
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.schema import storable_text
from runyard.storage.sql.state import SqlState
from runyard.storage.sql.vector_index import VectorQuery
from runyard.storage.vectors import pack_vector

__all__ = ["EmbeddingsPart"]


class EmbeddingsPart(SqlState):
    """Semantic-recall storage, scoped like messages."""

    async def save_embeddings(
        self,
        thread_id: str,
        entries: Sequence[EmbeddingEntry],
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        now = now_ms()
        rows = [
            {
                "thread_id": thread_id,
                "message_id": e.message_id,
                "tenant_id": tenant_id,
                "resource_id": resource_id,
                "model": e.model,
                "text": e.text,
                "dims": len(e.vector),
                "vector": pack_vector(e.vector),
                "created_at": now,
            }
            for e in entries
        ]
        await self._vectors.prepare(self._engine, {len(e.vector) for e in entries})
        async with write(self._engine) as conn:
            await self._claim(conn, thread_id, tenant_id, resource_id)
            if rows:
                await self._vectors.write(conn, rows)
        if rows:
            # Side indexes see the ids as the table stores them (``StorableText``).
            ids = [storable_text(e.message_id) for e in entries]
            await self._vectors.after_write(storable_text(thread_id), ids)

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
        if key:
            async with read(self._engine) as conn:
                if not await self._owned(conn, key, tenant_id, resource_id):
                    return []
        if top_k <= 0 or not vector:
            return []
        owner = storable_text(tenant_id), storable_text(resource_id)
        query = VectorQuery(list(vector), *owner, storable_text(key) or None, top_k)
        return await self._vectors.query(self._engine, query)
