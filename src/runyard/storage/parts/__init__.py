"""The parts of the ``Store``: one small Protocol per thing runyard persists.

Code asks for the part it uses, so a test fake or a new backend implements only that part;
``runyard.storage.Store`` is all of them together. Every part has its contract suite in
``tests/storage``, run over every backend.

Ownership rule of the thread-scoped parts (``Conversations``, ``MemoryTiers``, ``VectorStore``):
their operations take ``tenant_id`` and ``resource_id``; reads of a thread owned by someone
else find nothing, and writes to it raise ``ThreadOwnershipError`` without changing anything.
Writes to a thread that does not exist yet create it for the caller. ``RunLedger``,
``RunQueue``, ``Confirmations``, ``EventLogStore``, ``RunSnapshots``, ``ToolLedger`` and ``Checkpoints`` are keyed by run,
thread or checkpoint id only: the service checks ownership before it touches them. ``ApiKeys``
belongs to no thread: it says who a request acts for; nor does ``RateCounters``, whose
keys are whatever its caller limits. Nor does ``CatalogVersions``: the
catalog's agent versions, for every tenant. ``Files`` are owned like threads: a file belongs to one
tenant and user, and nobody else reads, deletes or references it.

Methods that write a batch take the thread and the batch positionally only (``/``): callers
pass them in order, so each backend names them as it likes (the SQL backend's own names would
shadow its tables). Every other parameter is matched by name.
"""

from runyard.storage.parts.api_keys import ApiKeys
from runyard.storage.parts.catalog_versions import CatalogVersions
from runyard.storage.parts.checkpoints import Checkpoints
from runyard.storage.parts.confirmations import Confirmations
from runyard.storage.parts.conversations import Conversations, Message
from runyard.storage.parts.event_log import EventLogStore
from runyard.storage.parts.files import Files
from runyard.storage.parts.instance_liveness import InstanceLiveness
from runyard.storage.parts.memory_tiers import (
    MemoryTiers,
    ObservationTier,
    PlanTier,
    WorkingMemoryTier,
)
from runyard.storage.parts.rate_counters import RateCounters
from runyard.storage.parts.run_ledger import RunLedger
from runyard.storage.parts.run_queue import RunQueue
from runyard.storage.parts.run_snapshots import RunSnapshots
from runyard.storage.parts.tool_ledger import ToolLedger
from runyard.storage.parts.vectors import VectorSearch, VectorStore

__all__ = [
    "ApiKeys",
    "CatalogVersions",
    "Checkpoints",
    "Confirmations",
    "Conversations",
    "EventLogStore",
    "Files",
    "InstanceLiveness",
    "MemoryTiers",
    "Message",
    "ObservationTier",
    "PlanTier",
    "RateCounters",
    "RunLedger",
    "RunQueue",
    "RunSnapshots",
    "ToolLedger",
    "VectorSearch",
    "VectorStore",
    "WorkingMemoryTier",
]
