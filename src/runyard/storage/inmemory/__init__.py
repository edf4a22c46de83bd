"""The in-memory backend of the ``Store`` protocol: one class per part over shared dictionaries.

Each part class implements one Protocol of ``runyard.storage.parts`` and works alone (a test
that needs only an event log may use ``EventLogPart()``); ``InMemoryStore`` is all of them.
"""

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
from runyard.storage.inmemory.runs import RunLedgerPart
from runyard.storage.inmemory.store import InMemoryStore
from runyard.storage.inmemory.tool_ledger import ToolLedgerPart
from runyard.storage.inmemory.vectors import VectorsPart

__all__ = [
    "ApiKeysPart",
    "CatalogVersionsPart",
    "CheckpointsPart",
    "ConfirmationsPart",
    "ConversationsPart",
    "EventLogPart",
    "FilesPart",
    "InstanceLivenessPart",
    "InMemoryStore",
    "MemoryTiersPart",
    "RateCountersPart",
    "RunLedgerPart",
    "RunQueuePart",
    "RunSnapshotsPart",
    "ToolLedgerPart",
    "VectorsPart",
]
