"""The ``Store`` protocol: everything runyard persists, as the composition of its parts.

The parts (``runyard.storage.parts``) are the seams code should ask for; ``Store`` is what a
complete backend (in-memory, SQLite, PostgreSQL) is and what ``open_store`` returns. Every
backend passes every part's contract suite in ``tests/storage``.
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from runyard.storage.parts import (
    ApiKeys,
    CatalogVersions,
    Checkpoints,
    Confirmations,
    Conversations,
    EventLogStore,
    Files,
    InstanceLiveness,
    MemoryTiers,
    Message,
    RateCounters,
    RunLedger,
    RunQueue,
    RunSnapshots,
    ToolLedger,
    VectorSearch,
    VectorStore,
)

__all__ = ["Backend", "Message", "Store", "VectorSearch"]

Backend = Literal["memory", "sqlite", "postgresql"]


@runtime_checkable
class Store(
    Conversations,
    MemoryTiers,
    VectorStore,
    RunLedger,
    RunQueue,
    Confirmations,
    EventLogStore,
    RunSnapshots,
    Checkpoints,
    ApiKeys,
    CatalogVersions,
    RateCounters,
    ToolLedger,
    Files,
    InstanceLiveness,
    Protocol,
):
    """Every part of runyard's storage in one backend, which can say what it is and close."""

    @property
    def backend(self) -> Backend:
        """Which implementation this is."""
        ...

    async def close(self) -> None:
        """Release connections; the store is unusable afterwards."""
        ...
