"""Semantic recall: cosine top-k within a thread or a user's threads, never another user's."""

from __future__ import annotations

import math

import pytest

from runyard.storage import EmbeddingEntry, Store, ThreadOwnershipError

ALICE = {"tenant_id": "acme", "resource_id": "alice"}
BOB = {"tenant_id": "acme", "resource_id": "bob"}
ALICE_ELSEWHERE = {"tenant_id": "globex", "resource_id": "alice"}


def _entry(message_id: str, *vector: float) -> EmbeddingEntry:
    return EmbeddingEntry(message_id, list(vector), f"text of {message_id}", "test-embedder")


async def test_query_ranks_by_cosine_similarity(store: Store) -> None:
    entries = [_entry("same", 1, 0, 0), _entry("close", 1, 1, 0), _entry("far", 0, 0, 1)]
    await store.save_embeddings("t1", entries, **ALICE)
    hits = await store.query_embeddings([2, 0, 0], thread_id="t1", top_k=2, **ALICE)
    assert [h.message_id for h in hits] == ["same", "close"]
    assert hits[0].thread_id == "t1"
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert hits[1].score == pytest.approx(1 / math.sqrt(2), abs=1e-5)


async def test_saving_an_embedding_again_replaces_it(store: Store) -> None:
    await store.save_embeddings("t1", [_entry("m1", 1, 0)], **ALICE)
    await store.save_embeddings("t1", [_entry("m1", 0, 1)], **ALICE)
    hits = await store.query_embeddings([0, 1], thread_id="t1", **ALICE)
    assert [(h.message_id, round(h.score, 4)) for h in hits] == [("m1", 1.0)]


async def test_thread_scope_sees_only_that_thread(store: Store) -> None:
    await store.save_embeddings("t1", [_entry("in-t1", 1, 0)], **ALICE)
    await store.save_embeddings("t2", [_entry("in-t2", 1, 0)], **ALICE)
    hits = await store.query_embeddings([1, 0], thread_id="t1", **ALICE)
    assert [h.message_id for h in hits] == ["in-t1"]


async def test_resource_scope_spans_the_users_threads_only(store: Store) -> None:
    await store.save_embeddings("t1", [_entry("a1", 1, 0)], **ALICE)
    await store.save_embeddings("t2", [_entry("a2", 0.9, 0.1)], **ALICE)
    await store.save_embeddings("tb", [_entry("bob", 1, 0)], **BOB)
    await store.save_embeddings("tg", [_entry("globex", 1, 0)], **ALICE_ELSEWHERE)
    hits = await store.query_embeddings([1, 0], scope="resource", top_k=10, **ALICE)
    assert [(h.message_id, h.thread_id) for h in hits] == [("a1", "t1"), ("a2", "t2")]


async def test_another_user_recalls_nothing_of_a_thread(store: Store) -> None:
    await store.save_embeddings("t1", [_entry("secret", 1, 0)], **ALICE)
    assert await store.query_embeddings([1, 0], thread_id="t1", **BOB) == []
    with pytest.raises(ThreadOwnershipError):
        await store.save_embeddings("t1", [_entry("planted", 1, 0)], **BOB)


async def test_vectors_of_another_length_are_not_compared(store: Store) -> None:
    await store.save_embeddings("t1", [_entry("two", 1, 0), _entry("three", 1, 0, 0)], **ALICE)
    hits = await store.query_embeddings([1, 0, 0], thread_id="t1", **ALICE)
    assert [h.message_id for h in hits] == ["three"]


async def test_top_k_over_many_vectors_matches_exact_ranking(store: Store) -> None:
    vectors = {f"m{i}": [math.cos(i / 10), math.sin(i / 10), (i % 7) / 7] for i in range(200)}
    await store.save_embeddings("t1", [_entry(k, *v) for k, v in vectors.items()], **ALICE)
    query = [math.cos(3.3), math.sin(3.3), 0.5]
    hits = await store.query_embeddings(query, scope="resource", top_k=5, **ALICE)

    def cosine(v: list[float]) -> float:
        dot = sum(a * b for a, b in zip(v, query, strict=True))
        return dot / (math.hypot(*v) * math.hypot(*query))

    expected = sorted(vectors, key=lambda k: cosine(vectors[k]), reverse=True)[:5]
    assert [h.message_id for h in hits] == expected
