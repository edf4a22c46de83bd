"""``SqlStore``: the ``Store`` protocol over SQLAlchemy Core, one code path for both dialects."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from runyard.storage.protocol import Backend, VectorSearch
from runyard.storage.sql.api_keys_part import ApiKeysPart
from runyard.storage.sql.catalog_versions_part import CatalogVersionsPart
from runyard.storage.sql.checkpoints_part import CheckpointsPart
from runyard.storage.sql.confirmations_part import ConfirmationsPart
from runyard.storage.sql.conversations import ConversationsPart
from runyard.storage.sql.embeddings_part import EmbeddingsPart
from runyard.storage.sql.engine import dispose
from runyard.storage.sql.files_part import FilesPart
from runyard.storage.sql.instance_liveness_part import InstanceLivenessPart
from runyard.storage.sql.log_part import LogPart
from runyard.storage.sql.memory_tiers import MemoryTiersPart
from runyard.storage.sql.rate_counters_part import RateCountersPart
from runyard.storage.sql.runs_part import RunsPart
from runyard.storage.sql.snapshots_part import SnapshotsPart
from runyard.storage.sql.tool_ledger_part import ToolLedgerPart

__all__ = ["SqlStore"]


class SqlStore(
    ConversationsPart,
    MemoryTiersPart,
    EmbeddingsPart,
    RunsPart,
    ConfirmationsPart,
    LogPart,
    CheckpointsPart,
    SnapshotsPart,
    ApiKeysPart,
    CatalogVersionsPart,
    RateCountersPart,
    ToolLedgerPart,
    FilesPart,
    InstanceLivenessPart,
):
    """A ``Store`` on SQLite or PostgreSQL. Build it with ``runyard.storage.open_store``."""

    @property
    def engine(self) -> AsyncEngine:
        """The SQLAlchemy engine (for the service's own health checks and benchmarks)."""
        return self._engine

    @property
    def backend(self) -> Backend:
        """``"sqlite"`` or ``"postgresql"``."""
        return "postgresql" if self._engine.dialect.name == "postgresql" else "sqlite"

    @property
    def vector_search(self) -> VectorSearch:
        """The vector index in use (see ``open_store``)."""
        return self._vectors.name

    async def close(self) -> None:
        """Let go of this instance's lock, close the vector index and dispose of the engine's
        connections."""
        await self._instance_locks.release()
        await self._vectors.close()
        await dispose(self._engine)
