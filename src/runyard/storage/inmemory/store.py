"""``InMemoryStore``: the whole ``Store`` protocol in dictionaries, for tests and demos."""

from __future__ import annotations

from runyard.storage.inmemory.api_keys import ApiKeysPart
from runyard.storage.inmemory.catalog_versions import CatalogVersionsPart
from runyard.storage.inmemory.checkpoints import CheckpointsPart
from runyard.storage.inmemory.confirmations import ConfirmationsPart
from runyard.storage.inmemory.conversations import ConversationsPart
from runyard.storage.inmemory.event_log import EventLogPart
from runyard.storage.inmemory.files import FilesPart
from runyard.storage.inmemory.instance_liveness import InstanceLivenessPart
from runyard.storage.inmemory.memory_tiers import MemoryTiersPart
from runyard.storage.inmemory.rate_counters import RateCountersPart
from runyard.storage.inmemory.run_queue import RunQueuePart
from runyard.storage.inmemory.run_snapshots import RunSnapshotsPart
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.inmemory.tool_ledger import ToolLedgerPart
from runyard.storage.inmemory.vectors import VectorsPart
from runyard.storage.protocol import Backend

__all__ = ["InMemoryStore"]


class InMemoryStore(
    ConversationsPart,
    MemoryTiersPart,
    VectorsPart,
    RunQueuePart,
    ConfirmationsPart,
    EventLogPart,
    RunSnapshotsPart,
    CheckpointsPart,
    ApiKeysPart,
    CatalogVersionsPart,
    RateCountersPart,
    ToolLedgerPart,
    FilesPart,
    InstanceLivenessPart,
):
    """A process-local ``Store``: same contract as the databases, nothing survives ``close``."""

    @property
    def backend(self) -> Backend:
        """Always ``"memory"``."""
        return "memory"

    async def close(self) -> None:
        """Drop everything held (bytes kept in a directory stay there)."""
        MemoryState.__init__(self)
