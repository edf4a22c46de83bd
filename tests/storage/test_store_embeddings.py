"""The ``VectorStore`` part: cosine top-k within a thread or a user's threads, never another
user's."""

from __future__ import annotations

import math

import pytest
from store_parts import assert_implements

from runyard.storage import EmbeddingEntry, Store, ThreadOwnershipError, VectorStore

ALICE = {"tenant_id": "acme", "resource_id": "alice"}
BOB = {"tenant_id": "acme", "resource_id": "bob"}
ALICE_ELSEWHERE = {"tenant_id": "globex", "resource_id": "alice"}


def _entry(message_id: str, *vector: float) -> EmbeddingEntry:
    return EmbeddingEntry(message_id, list(vector), f"text of {message_id}", "test-embedder")


async def test_every_backend_is_a_vector_store(store: VectorStore) -> None:
    assert_implements(store, VectorStore)


async def test_query_ranks_by_cosine_similarity(store: VectorStore) -> None:
    entries = [_entry("same", 1, 0, 0), _entry("close", 1, 1, 0), _entry("far", 0, 0, 1)]
    await store.save_embeddings("t1", entries, **ALICE)
    hits = await store.query_embeddings([2, 0, 0], thread_id="t1", top_k=2, **ALICE)
    assert [h.message_id for h in hits] == ["same", "close"]
    assert hits[0].thread_id == "t1"
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert hits[1].score == pytest.approx(1 / math.sqrt(2), abs=1e-5)


async def test_saving_an_embedding_again_replaces_it(store: VectorStore) -> None:
    await store.save_embeddings("t1", [_entry("m1", 1, 0)], **ALICE)
    await store.save_embeddings("t1", [_entry("m1", 0, 1)], **ALICE)
    hits = await store.query_embeddings([0, 1], thread_id="t1", **ALICE)
    assert [(h.message_id, round(h.score, 4)) for h in hits] == [("m1", 1.0)]


async def test_thread_scope_sees_only_that_thread(store: VectorStore) -> None:
    await store.save_embeddings("t1", [_entry("in-t1", 1, 0)], **ALICE)
    await store.save_embeddings("t2", [_entry("in-t2", 1, 0)], **ALICE)
    hits = await store.query_embeddings([1, 0], thread_id="t1", **ALICE)
    assert [h.message_id for h in hits] == ["in-t1"]


async def test_resource_scope_spans_the_users_threads_only(store: VectorStore) -> None:
    await store.save_embeddings("t1", [_entry("a1", 1, 0)], **ALICE)
    await store.save_embeddings("t2", [_entry("a2", 0.9, 0.1)], **ALICE)
    await store.save_embeddings("tb", [_entry("bob", 1, 0)], **BOB)
    await store.save_embeddings("tg", [_entry("globex", 1, 0)], **ALICE_ELSEWHERE)
    hits = await store.query_embeddings([1, 0], scope="resource", top_k=10, **ALICE)
    assert [(h.message_id, h.thread_id) for h in hits] == [("a1", "t1"), ("a2", "t2")]


async def test_another_user_recalls_nothing_of_a_thread(store: VectorStore) -> None:
    await store.save_embeddings("t1", [_entry("secret", 1, 0)], **ALICE)
    assert await store.query_embeddings([1, 0], thread_id="t1", **BOB) == []
    with pytest.raises(ThreadOwnershipError):
        await store.save_embeddings("t1", [_entry("planted", 1, 0)], **BOB)


async def test_vectors_of_another_length_are_not_compared(store: VectorStore) -> None:
    await store.save_embeddings("t1", [_entry("two", 1, 0), _entry("three", 1, 0, 0)], **ALICE)
    hits = await store.query_embeddings([1, 0, 0], thread_id="t1", **ALICE)
    assert [h.message_id for h in hits] == ["three"]


def _vectors(count: int, dims: int) -> dict[str, list[float]]:
    """Deterministic, well-spread vectors (no randomness, so every run ranks the same)."""
    return {f"m{i}": [math.sin(i * (d + 1) * 0.37 + d) for d in range(dims)] for i in range(count)}


def _exact(vectors: dict[str, list[float]], query: list[float], k: int) -> list[str]:
    def cosine(v: list[float]) -> float:
        dot = sum(a * b for a, b in zip(v, query, strict=True))
        return dot / (math.hypot(*v) * math.hypot(*query))

    return sorted(vectors, key=lambda key: cosine(vectors[key]), reverse=True)[:k]


@pytest.mark.parametrize("dims", [3, 16])
async def test_top_k_matches_the_exact_ranking(store: VectorStore, dims: int) -> None:
    vectors = _vectors(200, dims)
    await store.save_embeddings("t1", [_entry(k, *v) for k, v in vectors.items()], **ALICE)
    query = [math.cos(d * 1.3) for d in range(dims)]
    for scope in ("thread", "resource"):
        hits = await store.query_embeddings(query, thread_id="t1", scope=scope, top_k=5, **ALICE)
        assert [h.message_id for h in hits] == _exact(vectors, query, 5)


async def test_a_stored_vector_finds_itself_first_among_many(store: VectorStore) -> None:
    vectors = _vectors(1200, 32)
    for t in range(4):
        chunk = list(vectors.items())[t * 300 : (t + 1) * 300]
        await store.save_embeddings(f"t{t}", [_entry(k, *v) for k, v in chunk], **ALICE)
    for probe in ("m7", "m650", "m1199"):
        hits = await store.query_embeddings(vectors[probe], scope="resource", top_k=5, **ALICE)
        assert hits[0].message_id == probe
        assert hits[0].score == pytest.approx(1.0, abs=1e-4)
        assert len(hits) == 5


async def test_deleted_threads_drop_out_of_resource_recall(store: Store) -> None:
    vectors = _vectors(40, 16)
    items = list(vectors.items())
    await store.save_embeddings("keep", [_entry(k, *v) for k, v in items[:20]], **ALICE)
    await store.save_embeddings("drop", [_entry(k, *v) for k, v in items[20:]], **ALICE)
    await store.delete_thread("drop", **ALICE)
    hits = await store.query_embeddings(vectors["m25"], scope="resource", top_k=30, **ALICE)
    assert {h.thread_id for h in hits} == {"keep"}
    assert len(hits) == 20
