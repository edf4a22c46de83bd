"""``InMemoryStore``: the whole ``Store`` protocol in dictionaries, for tests and demos."""

from __future__ import annotations

from runyard.storage.inmemory.conversations import ConversationsPart
from runyard.storage.inmemory.memory_tiers import MemoryTiersPart
from runyard.storage.inmemory.runs import RunsPart
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.protocol import Backend, VectorSearch

__all__ = ["InMemoryStore"]


class InMemoryStore(ConversationsPart, MemoryTiersPart, RunsPart):
    """A process-local ``Store``: same contract as the databases, nothing survives ``close``."""

    @property
    def backend(self) -> Backend:
        """Always ``"memory"``."""
        return "memory"

    @property
    def vector_search(self) -> VectorSearch:
        """Exact cosine in Python."""
        return "exact"

    async def close(self) -> None:
        """Drop everything held."""
        MemoryState.__init__(self)
