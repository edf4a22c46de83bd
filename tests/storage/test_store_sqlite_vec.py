"""SQLite's quantized side table: large scopes stay correct, private, and survive a crash."""

from __future__ import annotations

import logging
import math
from pathlib import Path

import pytest

from runyard.storage import EmbeddingEntry, Store, open_store
from runyard.storage.sql.sqlite_vec_connection import connect
from runyard.storage.sql.sqlite_vec_index import EXACT_LIMIT

ALICE = {"tenant_id": "acme", "resource_id": "alice"}
BOB = {"tenant_id": "acme", "resource_id": "bob"}
COUNT = EXACT_LIMIT + 500  # enough rows that the quantized pool, not a full scan, is used


def _vector(i: int) -> list[float]:
    return [math.sin(i * (d + 1) * 0.37 + d) for d in range(16)]


async def _fill(store: Store, owner: dict[str, str], prefix: str) -> None:
    for t in range(5):
        entries = [
            EmbeddingEntry(f"{prefix}{i}", _vector(i), "", "m")
            for i in range(t * COUNT // 5, (t + 1) * COUNT // 5)
        ]
        await store.save_embeddings(f"{prefix}-thread-{t}", entries, **owner)


@pytest.fixture
async def big_store(tmp_path: Path) -> Store:
    store = await open_store(f"sqlite:///{tmp_path / 'big.db'}")
    assert store.vector_search == "sqlite-vec"
    await _fill(store, ALICE, "a")
    return store


async def test_large_scopes_still_find_an_identical_vector_first(big_store: Store) -> None:
    try:
        for i in (3, 1234, COUNT - 1):
            hits = await big_store.query_embeddings(_vector(i), scope="resource", **ALICE)
            assert hits[0].message_id == f"a{i}"
            assert hits[0].score == pytest.approx(1.0, abs=1e-4)
            assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    finally:
        await big_store.close()


async def test_the_pool_never_holds_another_users_vectors(big_store: Store) -> None:
    try:
        await _fill(big_store, BOB, "b")
        hits = await big_store.query_embeddings(_vector(42), scope="resource", top_k=50, **ALICE)
        assert len(hits) == 50
        assert all(h.message_id.startswith("a") for h in hits)
    finally:
        await big_store.close()


async def test_deleted_threads_leave_the_pool(big_store: Store) -> None:
    try:
        assert await big_store.delete_thread("a-thread-0", **ALICE)
        hits = await big_store.query_embeddings(_vector(3), scope="resource", top_k=20, **ALICE)
        assert "a-thread-0" not in {h.thread_id for h in hits}
    finally:
        await big_store.close()


async def test_side_table_is_reconciled_when_the_store_opens(
    big_store: Store, tmp_path: Path
) -> None:
    await big_store.close()
    # As if the process died between committing rows and updating the side table.
    conn = connect(str(tmp_path / "big.db"))
    conn.execute("DELETE FROM embeddings_bits_16 WHERE rowid IN (SELECT seq FROM embeddings)")
    conn.close()
    reopened = await open_store(f"sqlite:///{tmp_path / 'big.db'}")
    try:
        hits = await reopened.query_embeddings(_vector(1234), scope="resource", **ALICE)
        assert hits[0].message_id == "a1234"
    finally:
        await reopened.close()


async def test_without_sqlite_vec_the_store_says_so_and_ranks_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def cannot_load(path: str) -> None:
        raise RuntimeError("this Python cannot load SQLite extensions")

    monkeypatch.setattr("runyard.storage.sql.sqlite_vec_index.connect", cannot_load)
    caplog.set_level(logging.INFO, logger="runyard.storage")
    store = await open_store(f"sqlite:///{tmp_path / 'plain.db'}")
    try:
        assert store.vector_search == "exact"
        # Nothing said while nothing asks for vectors (a server without recall, `runyard keys`).
        assert "sqlite-vec" not in caplog.text
        await store.save_embeddings("t1", [EmbeddingEntry("m1", _vector(1), "", "m")], **ALICE)
        hits = await store.query_embeddings(_vector(1), thread_id="t1", **ALICE)
        assert [h.message_id for h in hits] == ["m1"]
        await store.query_embeddings(_vector(1), thread_id="t1", **ALICE)
    finally:
        await store.close()
    said = [r for r in caplog.records if "sqlite-vec cannot be loaded" in r.getMessage()]
    assert len(said) == 1  # once, at the first use
    assert said[0].levelno == logging.WARNING
    assert "runyard[vectors]" in said[0].getMessage()
    assert "exact cosine" in said[0].getMessage()
