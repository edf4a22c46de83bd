"""Semantic-recall latency: top-5 by cosine over 100,000 stored vectors of one user.

    python benchmarks/storage_recall.py [--vectors 100000] [--dims 384] [--pgvector URL]

Stores random unit vectors (seeded) for one user across 100 threads, then times
``Store.query_embeddings`` with resource scope (all 100,000 rows compete) and thread scope
(one thread's 1,000). SQLite ranks with sqlite-vec; PostgreSQL with pgvector (HNSW) when a
URL to a server with the extension is given (or RUNYARD_TEST_PGVECTOR_URL is set).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import asyncpg

from runyard.storage import EmbeddingEntry, Store, open_store

OWNER = {"tenant_id": "bench", "resource_id": "user-1"}
THREADS = 100
QUERIES = 50


def _unit(rng: random.Random, dims: int) -> list[float]:
    v = [rng.gauss(0.0, 1.0) for _ in range(dims)]
    norm = sum(x * x for x in v) ** 0.5
    return [x / norm for x in v]


async def _fill(store: Store, total: int, dims: int) -> float:
    rng = random.Random(7)
    per_thread = total // THREADS
    started = time.perf_counter()
    for t in range(THREADS):
        entries = [
            EmbeddingEntry(f"m{t}-{i}", _unit(rng, dims), "", "bench") for i in range(per_thread)
        ]
        await store.save_embeddings(f"thread-{t}", entries, **OWNER)
    return time.perf_counter() - started


async def _latencies(store: Store, dims: int, thread_id: str | None) -> list[float]:
    rng = random.Random(11)
    scope = "thread" if thread_id else "resource"
    timings = []
    for _ in range(QUERIES):
        query = _unit(rng, dims)
        started = time.perf_counter()
        hits = await store.query_embeddings(
            query, thread_id=thread_id, scope=scope, top_k=5, **OWNER
        )
        timings.append((time.perf_counter() - started) * 1000)
        assert len(hits) == 5
    return timings


def _report(label: str, timings: list[float]) -> None:
    ordered = sorted(timings)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    print(f"  {label:<18} p50 {statistics.median(ordered):7.2f} ms   p95 {p95:7.2f} ms")


async def measure(url: str, total: int, dims: int) -> None:
    """Fill a store at ``url`` and print its recall latencies."""
    store = await open_store(url)
    try:
        fill = await _fill(store, total, dims)
        print(f"{store.backend} ({store.vector_search}): stored {total:,} x {dims} in {fill:.1f} s")
        _report("resource scope", await _latencies(store, dims, None))
        _report("thread scope", await _latencies(store, dims, "thread-3"))
    finally:
        await store.close()


async def _on_fresh_database(server: str, total: int, dims: int) -> None:
    name = f"runyard_bench_{uuid.uuid4().hex[:8]}"
    admin = server.replace("postgresql+asyncpg://", "postgresql://")
    conn = await asyncpg.connect(admin)
    await conn.execute(f'CREATE DATABASE "{name}"')
    try:
        await measure(f"{admin.rpartition('/')[0]}/{name}", total, dims)
    finally:
        await conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        await conn.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vectors", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--pgvector", default=os.environ.get("RUNYARD_TEST_PGVECTOR_URL", ""))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        await measure(f"sqlite:///{Path(tmp) / 'recall.db'}", args.vectors, args.dims)
    if args.pgvector:
        await _on_fresh_database(args.pgvector, args.vectors, args.dims)


if __name__ == "__main__":
    asyncio.run(main())
