"""The ``Conversations`` part, threads: ownership, upsert, listing order, titles and cascading
deletes (which reach every part of a whole ``Store``)."""

from __future__ import annotations

import pytest
from store_parts import assert_implements

from runyard.messages import AgentMessage
from runyard.storage import (
    Conversations,
    EmbeddingEntry,
    MessageCursor,
    Observation,
    Store,
    StoredEvent,
    ThreadOwnershipError,
)

ALICE = {"tenant_id": "acme", "resource_id": "alice"}
BOB = {"tenant_id": "acme", "resource_id": "bob"}


async def test_every_backend_is_a_conversations_part(store: Conversations) -> None:
    assert_implements(store, Conversations)


async def test_saved_thread_is_read_back_by_its_owner(store: Conversations) -> None:
    saved = await store.save_thread("t1", title="Hello", metadata={"a": 1}, **ALICE)
    got = await store.get_thread("t1", **ALICE)
    assert got == saved
    assert (got.tenant_id, got.resource_id, got.title, got.metadata) == (
        "acme",
        "alice",
        "Hello",
        {"a": 1},
    )


async def test_saving_again_updates_and_none_keeps_fields(store: Conversations) -> None:
    first = await store.save_thread("t1", title="Hello", metadata={"a": 1}, **ALICE)
    await store.save_thread("t1", **ALICE)
    kept = await store.get_thread("t1", **ALICE)
    assert kept is not None
    assert (kept.title, kept.metadata) == ("Hello", {"a": 1})
    await store.save_thread("t1", title="Renamed", metadata={"b": 2}, **ALICE)
    changed = await store.get_thread("t1", **ALICE)
    assert changed is not None
    assert (changed.title, changed.metadata) == ("Renamed", {"b": 2})
    assert changed.created_at == first.created_at


async def test_another_owners_thread_is_never_overwritten(store: Conversations) -> None:
    await store.save_thread("t1", title="Alice's", **ALICE)
    with pytest.raises(ThreadOwnershipError):
        await store.save_thread("t1", title="Bob's", **BOB)
    with pytest.raises(ThreadOwnershipError):
        await store.save_thread("t1", tenant_id="other", resource_id="alice")
    got = await store.get_thread("t1", **ALICE)
    assert got is not None
    assert got.title == "Alice's"


async def test_another_owner_finds_nothing(store: Conversations) -> None:
    await store.save_thread("t1", **ALICE)
    assert await store.get_thread("t1", **BOB) is None
    assert await store.get_thread("t1", tenant_id="other", resource_id="alice") is None
    assert await store.list_threads(**BOB) == []
    assert not await store.set_thread_title("t1", "x", **BOB)
    assert not await store.delete_thread("t1", **BOB)
    assert await store.get_thread("t1", **ALICE) is not None


async def test_threads_are_listed_most_recently_updated_first(store: Conversations) -> None:
    for thread_id in ("a", "b", "c"):
        await store.save_thread(thread_id, **ALICE)
    await store.save_messages("a", [AgentMessage.user("bump")], **ALICE)
    listed = await store.list_threads(**ALICE)
    assert sorted(t.id for t in listed) == ["a", "b", "c"]
    stamps = [t.updated_at for t in listed]
    assert stamps == sorted(stamps, reverse=True)
    bumped = next(t for t in listed if t.id == "a")
    assert bumped.updated_at == stamps[0]
    assert len(await store.list_threads(limit=2, **ALICE)) == 2


async def test_set_thread_title(store: Conversations) -> None:
    await store.save_thread("t1", **ALICE)
    assert await store.set_thread_title("t1", "Named", **ALICE)
    got = await store.get_thread("t1", **ALICE)
    assert got is not None
    assert got.title == "Named"
    assert not await store.set_thread_title("missing", "x", **ALICE)


async def test_deleting_a_thread_removes_everything_it_holds(store: Store) -> None:
    message = AgentMessage.user("hi")
    await store.save_messages("t1", [message], **ALICE)
    await store.save_plan("t1", {"goal": "g"}, **ALICE)
    await store.append_observations("t1", [Observation("o1", "t1", "seen", 1)], **ALICE)
    await store.set_observation_cursor("t1", MessageCursor(1, message.id), **ALICE)
    await store.save_working_memory("thread doc", scope="thread", thread_id="t1", **ALICE)
    await store.save_working_memory("user doc", scope="resource", **ALICE)
    await store.save_embeddings("t1", [EmbeddingEntry(message.id, [1.0, 0.0], "hi", "m")], **ALICE)
    await store.append_events("t1", [StoredEvent("t1", 1, "r1", "run-start", {}, 1)])

    assert await store.delete_thread("t1", **ALICE)

    assert await store.get_thread("t1", **ALICE) is None
    # Recreating the id starts empty: nothing of the old thread survived.
    await store.save_thread("t1", **ALICE)
    assert await store.get_messages("t1", **ALICE) == []
    assert await store.get_plan("t1", **ALICE) is None
    assert await store.list_observations("t1", **ALICE) == []
    assert await store.get_observation_cursor("t1", **ALICE) is None
    assert await store.get_working_memory(scope="thread", thread_id="t1", **ALICE) is None
    assert await store.query_embeddings([1.0, 0.0], thread_id="t1", **ALICE) == []
    assert await store.read_events("t1") == []
    resource_doc = await store.get_working_memory(scope="resource", **ALICE)
    assert resource_doc is not None
    assert resource_doc.content == "user doc"
