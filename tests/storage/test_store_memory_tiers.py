"""The ``MemoryTiers`` part: working memory, observations with their cursor, and plans, each
isolated per owner. The plans test runs on a plans-only fake too."""

from __future__ import annotations

import asyncio

import pytest
from store_parts import assert_implements

from runyard.storage import (
    MemoryTiers,
    MessageCursor,
    Observation,
    ObservationTier,
    PlanTier,
    Store,
    ThreadOwnershipError,
    WorkingMemoryTier,
)

ALICE = {"tenant_id": "acme", "resource_id": "alice"}
BOB = {"tenant_id": "acme", "resource_id": "bob"}
ALICE_ELSEWHERE = {"tenant_id": "globex", "resource_id": "alice"}


async def test_every_backend_is_all_memory_tiers(store: MemoryTiers) -> None:
    assert_implements(store, MemoryTiers)


async def test_resource_working_memory_is_per_tenant_and_user(store: WorkingMemoryTier) -> None:
    await store.save_working_memory("alice at acme", scope="resource", **ALICE)
    await store.save_working_memory("bob at acme", scope="resource", **BOB)
    mine = await store.get_working_memory(scope="resource", **ALICE)
    assert mine is not None
    assert (mine.content, mine.scope, mine.thread_id) == (
        "alice at acme",
        "resource",
        None,
    )
    bobs = await store.get_working_memory(scope="resource", **BOB)
    assert bobs is not None
    assert bobs.content == "bob at acme"
    assert await store.get_working_memory(scope="resource", **ALICE_ELSEWHERE) is None


async def test_thread_working_memory_is_replaced_and_private(store: WorkingMemoryTier) -> None:
    await store.save_working_memory("v1", scope="thread", thread_id="t1", **ALICE)
    await store.save_working_memory("v2", scope="thread", thread_id="t1", **ALICE)
    doc = await store.get_working_memory(scope="thread", thread_id="t1", **ALICE)
    assert doc is not None
    assert (doc.content, doc.thread_id) == ("v2", "t1")
    assert await store.get_working_memory(scope="thread", thread_id="t1", **BOB) is None
    assert await store.get_working_memory(scope="resource", **ALICE) is None
    with pytest.raises(ThreadOwnershipError):
        await store.save_working_memory("x", scope="thread", thread_id="t1", **BOB)


async def test_thread_scope_needs_a_thread_id(store: WorkingMemoryTier) -> None:
    with pytest.raises(ValueError, match="thread_id"):
        await store.get_working_memory(scope="thread", **ALICE)


async def test_observations_append_in_order_and_replace_atomically(store: ObservationTier) -> None:
    first = [
        Observation("o1", "t1", "one", 10, tokens=3, marker="critical"),
        Observation("o2", "t1", "two", 10, tokens=4, parent_id="o1", metadata={"k": 1}),
    ]
    await store.append_observations("t1", first, **ALICE)
    await store.append_observations("t1", [Observation("o0", "t1", "zero", 5)], **ALICE)
    assert [o.id for o in await store.list_observations("t1", **ALICE)] == ["o0", "o1", "o2"]
    assert (await store.list_observations("t1", **ALICE))[2] == first[1]

    merged = [Observation("r1", "t1", "merged", 11, tokens=5)]
    await store.replace_observations("t1", merged, **ALICE)
    assert await store.list_observations("t1", **ALICE) == merged


async def test_observations_are_private_to_the_threads_owner(store: ObservationTier) -> None:
    await store.append_observations("t1", [Observation("o1", "t1", "mine", 1)], **ALICE)
    assert await store.list_observations("t1", **BOB) == []
    with pytest.raises(ThreadOwnershipError):
        await store.replace_observations("t1", [], **BOB)
    assert len(await store.list_observations("t1", **ALICE)) == 1


async def test_observation_cursor_moves_forward(store: Store) -> None:
    await store.save_thread("t1", **ALICE)
    assert await store.get_observation_cursor("t1", **ALICE) is None
    await store.set_observation_cursor("t1", MessageCursor(10, "m1"), **ALICE)
    moved = await store.set_observation_cursor("t1", MessageCursor(20, "m2"), **ALICE)
    got = await store.get_observation_cursor("t1", **ALICE)
    assert got == moved
    assert got is not None
    assert (got.message_created_at, got.message_id) == (20, "m2")
    assert await store.get_observation_cursor("t1", **BOB) is None


async def test_advancing_observations_is_a_compare_and_set_on_the_cursor(store: Store) -> None:
    first, second = MessageCursor(10, "m1"), MessageCursor(20, "m2")
    one = [Observation("o1", "t1", "one", 10)]
    assert await store.advance_observations("t1", one, cursor=first, expected=None, **ALICE)
    # A second writer that read "no cursor yet" loses, and writes nothing.
    stale = [Observation("o9", "t1", "stale", 10)]
    assert not await store.advance_observations("t1", stale, cursor=second, expected=None, **ALICE)
    assert not await store.advance_observations(
        "t1", stale, cursor=second, expected=MessageCursor(10, "other"), **ALICE
    )
    two = [Observation("o2", "t1", "two", 20)]
    assert await store.advance_observations("t1", two, cursor=second, expected=first, **ALICE)
    assert [o.id for o in await store.list_observations("t1", **ALICE)] == ["o1", "o2"]
    got = await store.get_observation_cursor("t1", **ALICE)
    assert got is not None
    assert (got.message_created_at, got.message_id) == (20, "m2")
    with pytest.raises(ThreadOwnershipError):
        await store.advance_observations("t1", stale, cursor=first, expected=second, **BOB)


async def test_of_concurrent_advances_from_one_cursor_exactly_one_wins(store: Store) -> None:
    start = MessageCursor(10, "m1")
    await store.set_observation_cursor("t1", start, **ALICE)

    won = await asyncio.gather(
        *(
            store.advance_observations(
                "t1",
                [Observation(f"o{i}", "t1", f"writer {i}", 20)],
                cursor=MessageCursor(20 + i, f"m{i}"),
                expected=start,
                **ALICE,
            )
            for i in range(4)
        )
    )

    assert won.count(True) == 1
    (kept,) = await store.list_observations("t1", **ALICE)
    assert kept.text == f"writer {won.index(True)}"


async def test_condensing_replaces_only_the_observations_it_names(store: Store) -> None:
    old = [Observation("o1", "t1", "one", 10), Observation("o2", "t1", "two", 11)]
    await store.append_observations("t1", old, **ALICE)
    await store.append_observations("t1", [Observation("o3", "t1", "new", 12)], **ALICE)

    merged = [Observation("r1", "t1", "one and two", 10)]
    assert await store.condense_observations("t1", merged, replaces=["o1", "o2"], **ALICE)

    assert [o.id for o in await store.list_observations("t1", **ALICE)] == ["r1", "o3"]
    again = [Observation("r2", "t1", "stale", 10)]
    assert not await store.condense_observations("t1", again, replaces=["o1", "o2"], **ALICE)
    assert [o.id for o in await store.list_observations("t1", **ALICE)] == ["r1", "o3"]
    with pytest.raises(ThreadOwnershipError):
        await store.condense_observations("t1", again, replaces=["r1"], **BOB)


async def test_of_concurrent_condensers_of_one_log_exactly_one_wins(store: Store) -> None:
    old = [Observation(f"o{i}", "t1", f"note {i}", 10 + i) for i in range(3)]
    await store.append_observations("t1", old, **ALICE)

    won = await asyncio.gather(
        *(
            store.condense_observations(
                "t1",
                [Observation(f"r{i}", "t1", f"condensed by {i}", 10)],
                replaces=[o.id for o in old],
                **ALICE,
            )
            for i in range(4)
        )
    )

    assert won.count(True) == 1
    (kept,) = await store.list_observations("t1", **ALICE)
    assert kept.text == f"condensed by {won.index(True)}"


@pytest.mark.part_fakes("plans-only")
async def test_plans_are_replaced_and_private(store: PlanTier) -> None:
    assert await store.get_plan("t1", **ALICE) is None
    await store.save_plan("t1", {"goal": "a", "tasks": []}, **ALICE)
    saved = await store.save_plan("t1", {"goal": "b", "tasks": [{"id": "1"}]}, **ALICE)
    assert await store.get_plan("t1", **ALICE) == saved
    assert saved.data == {"goal": "b", "tasks": [{"id": "1"}]}
    assert await store.get_plan("t1", **BOB) is None
    with pytest.raises(ThreadOwnershipError):
        await store.save_plan("t1", {"goal": "hijack"}, **BOB)
