"""Semantic recall: embed what users and assistants say, and bring back similar past exchanges.

Searches stay inside the caller's tenant and user: the store's ``query_embeddings`` is always
asked with both, so another user's messages can never match.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from runyard.memory.config import SemanticRecallConfig
from runyard.messages import AgentMessage, CustomMessage
from runyard.models import Embedder, resolve_embedder
from runyard.runtime import MemoryScope
from runyard.storage import EmbeddingEntry, EmbeddingHit, Store

__all__ = ["SemanticRecall"]

log = logging.getLogger(__name__)

Message = AgentMessage | CustomMessage


class SemanticRecall:
    """Writes message embeddings on save and finds matches (with their neighbours) on read."""

    def __init__(self, store: Store, config: SemanticRecallConfig) -> None:
        self._store = store
        self.config = config
        embedder = config.embedder
        self.embedder: Embedder = (
            resolve_embedder(embedder) if isinstance(embedder, str) else embedder
        )

    async def index(self, scope: MemoryScope, messages: Sequence[Message]) -> None:
        """Embed the user and assistant messages that have text; failures only cost recall."""
        worth = [m for m in messages if isinstance(m, AgentMessage) and _embeddable(m)]
        if not worth:
            return
        texts = [m.text for m in worth]
        try:
            vectors = await self.embedder.embed(texts)
            entries = [
                EmbeddingEntry(m.id, vector, text, self.embedder.model_name)
                for m, vector, text in zip(worth, vectors, texts, strict=True)
            ]
            await self._store.save_embeddings(
                scope.thread_id,
                entries,
                tenant_id=scope.tenant_id,
                resource_id=scope.resource_id,
            )
        except Exception:
            log.exception("embedding messages of thread %s failed", scope.thread_id)

    async def recall(self, scope: MemoryScope, query: str) -> list[Message]:
        """Past messages similar to ``query``, each with its neighbours, oldest first."""
        if not query.strip():
            return []
        try:
            (vector,) = await self.embedder.embed([query])
        except Exception:
            log.exception("embedding the recall query of thread %s failed", scope.thread_id)
            return []
        hits = await self._store.query_embeddings(
            vector,
            tenant_id=scope.tenant_id,
            resource_id=scope.resource_id,
            thread_id=scope.thread_id,
            scope=self.config.scope,
            top_k=self.config.top_k,
        )
        found: dict[str, Message] = {}
        for thread_id in dict.fromkeys(hit.thread_id for hit in hits):
            thread_hits = [hit for hit in hits if hit.thread_id == thread_id]
            for message in await self._ranges(scope, thread_id, thread_hits):
                found[message.id] = message
        return sorted(found.values(), key=lambda m: m.created_at)

    async def _ranges(
        self, scope: MemoryScope, thread_id: str, hits: Sequence[EmbeddingHit]
    ) -> list[Message]:
        # The store has no "n messages around this one" read; a thread is read once per recall.
        messages = await self._store.get_messages(
            thread_id, tenant_id=scope.tenant_id, resource_id=scope.resource_id
        )
        position = {m.id: i for i, m in enumerate(messages)}
        picked: list[Message] = []
        for hit in hits:
            index = position.get(hit.message_id)
            if index is None:
                continue
            start = max(0, index - self.config.before)
            picked.extend(messages[start : index + self.config.after + 1])
        return picked


def _embeddable(message: AgentMessage) -> bool:
    return message.role in ("user", "assistant") and bool(message.text.strip())
