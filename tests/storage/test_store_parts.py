"""The ``Store`` is made of small parts: each one a Protocol of its own, implemented one to one by
the in-memory backend's part classes, and fakeable alone for code that needs only that part."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from part_fakes import EventLogOnly, PlansOnly
from store_parts import assert_implements, part_members

from runyard.memory import Plan, PlanStore, PlanTask
from runyard.protocol import StatusEvent, StatusPayload, event_to_dict, parse_event
from runyard.runtime import MemoryScope
from runyard.service import EventLog
from runyard.service.bus import InProcessEventBus
from runyard.storage import (
    ApiKeys,
    CatalogVersions,
    Checkpoints,
    Confirmations,
    Conversations,
    EventLogStore,
    Files,
    InstanceLiveness,
    MemoryTiers,
    RateCounters,
    RunLedger,
    RunQueue,
    RunSnapshots,
    Store,
    StoredEvent,
    ThreadOwnershipError,
    ToolLedger,
    VectorStore,
)
from runyard.storage.inmemory import (
    ApiKeysPart,
    CatalogVersionsPart,
    CheckpointsPart,
    ConfirmationsPart,
    ConversationsPart,
    EventLogPart,
    FilesPart,
    InstanceLivenessPart,
    MemoryTiersPart,
    RateCountersPart,
    RunLedgerPart,
    RunQueuePart,
    RunSnapshotsPart,
    ToolLedgerPart,
    VectorsPart,
)

PARTS = [
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
]


def test_the_store_is_its_parts_and_nothing_more() -> None:
    members = [part_members(part) for part in PARTS]
    every = set().union(*members)
    assert sum(len(m) for m in members) == len(every), "a name belongs to two parts"
    assert part_members(Store) == every | {"backend", "close"}


@pytest.mark.parametrize(
    ("part_class", "part"),
    [
        (ConversationsPart, Conversations),
        (MemoryTiersPart, MemoryTiers),
        (VectorsPart, VectorStore),
        (RunLedgerPart, RunLedger),
        (RunQueuePart, RunQueue),
        (ConfirmationsPart, Confirmations),
        (EventLogPart, EventLogStore),
        (RunSnapshotsPart, RunSnapshots),
        (CheckpointsPart, Checkpoints),
        (ApiKeysPart, ApiKeys),
        (CatalogVersionsPart, CatalogVersions),
        (RateCountersPart, RateCounters),
        (ToolLedgerPart, ToolLedger),
        (FilesPart, Files),
        (InstanceLivenessPart, InstanceLiveness),
    ],
)
def test_each_in_memory_part_class_implements_one_part_exactly(
    part_class: type, part: type
) -> None:
    assert_implements(part_class(), part)
    # What the class and the storage helpers it builds on (``StreamedFiles``) define.
    own = {
        name
        for cls in part_class.__mro__
        if cls is part_class or cls.__module__.startswith("runyard.storage.files.")
        for name in vars(cls)
        if not name.startswith("_")
    }
    assert own == part_members(part)


class _RenamedKeyword(EventLogOnly):
    async def read_events(
        self, thread_id: str, *, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        return await super().read_events(thread_id, after_id=after, limit=limit)


class _OtherDefault(EventLogOnly):
    async def read_events(
        self, thread_id: str, *, after_id: int = 1, limit: int | None = None
    ) -> list[StoredEvent]:
        return await super().read_events(thread_id, after_id=after_id, limit=limit)


class _NotAsync(EventLogOnly):
    def last_event_id(self, thread_id: str) -> int:  # type: ignore[override]
        return 0


class _StubOnly(EventLogStore):
    """Names the Protocol but implements nothing: the Protocol's stubs are no implementation."""

    async def append_events(self, thread_id: str, events: Sequence[StoredEvent], /) -> None:
        return None


@pytest.mark.parametrize(
    ("impostor", "named"),
    [
        (_RenamedKeyword, "read_events"),
        (_OtherDefault, "read_events"),
        (_NotAsync, "last_event_id"),
        (_StubOnly, "read_events is missing"),
    ],
)
def test_a_member_shaped_unlike_its_part_is_no_implementation(impostor: type, named: str) -> None:
    with pytest.raises(AssertionError, match=named):
        assert_implements(impostor(), EventLogStore)


async def test_a_plans_only_fake_serves_the_plan_store() -> None:
    plans = PlanStore(PlansOnly())
    alice, bob = MemoryScope("t1", "alice", "acme"), MemoryScope("t1", "bob", "acme")
    plan = Plan(goal="ship", tasks=[PlanTask(id="1", description="write it")])

    assert await plans.save(alice, plan) == plan
    assert await plans.get(alice) == plan
    assert await plans.get(bob) is None
    with pytest.raises(ThreadOwnershipError):
        await plans.save(bob, plan)


def _status(n: int) -> StatusEvent:
    return StatusEvent(run_id="run_1", agent_id="agent-001", payload=StatusPayload(message=str(n)))


async def test_an_event_log_only_fake_serves_the_services_event_log() -> None:
    bus = InProcessEventBus()
    log = EventLog(EventLogOnly(), bus, tail_size=2)
    try:
        async with log.writer("t1") as writer:
            ids = [writer.emit(_status(n)) for n in range(5)]
        async with log.writer("t1") as writer:
            ids.append(writer.emit(_status(5)))
        stored = await log.read_stored("t1")
        replayed = await log.read("t1", after=2)
    finally:
        await log.close()
        await bus.close()

    assert ids == [1, 2, 3, 4, 5, 6]
    assert [(e.id, parse_event(e.data)) for e in stored] == [(n + 1, _status(n)) for n in range(6)]
    assert [(e.id, json.loads(e.json)) for e in replayed] == [
        (n + 1, event_to_dict(_status(n))) for n in range(2, 6)
    ]
