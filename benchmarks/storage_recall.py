"""Semantic-recall latency and accuracy: top-5 by cosine over 100,000 vectors of one user.

    python benchmarks/storage_recall.py [--vectors 100000] [--dims 384] [--pgvector URL]
                                        [--backend sqlite|pgvector] [--json PATH]

Stores seeded, clustered unit vectors (2,000 topics plus noise, roughly how sentence
embeddings spread) for one user across 100 threads, then times ``Store.query_embeddings``
with resource scope (every row competes) and thread scope (one thread's rows). Accuracy is
recall@5 against an exact full scan. SQLite ranks with sqlite-vec; PostgreSQL with pgvector
(HNSW) when a URL to a server with the extension is given (or RUNYARD_TEST_PGVECTOR_URL).
``--backend`` measures one backend only; ``--json PATH`` writes a summary row per backend against
the target: resource-scope p95 ≤ 20 ms.
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
from _report import Row, at_most, json_option, write_rows

from runyard.storage import EmbeddingEntry, Store, open_store
from runyard.storage.sql.sqlite_vec_connection import connect, fetch
from runyard.storage.vectors import pack_vector

OWNER = {"tenant_id": "bench", "resource_id": "user-1"}
THREADS = 100
QUERIES = 50
TOPICS = 2000
TARGET_P95_MS = 20
BACKENDS = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


def _normalise(v: list[float]) -> list[float]:
    norm = sum(x * x for x in v) ** 0.5
    return [x / norm for x in v]


class Corpus:
    """Seeded vectors and queries, identical for every backend."""

    def __init__(self, total: int, dims: int) -> None:
        rng = random.Random(7)
        topics = [_normalise([rng.gauss(0, 1) for _ in range(dims)]) for _ in range(TOPICS)]
        self.vectors = [self._near(rng, topics[rng.randrange(TOPICS)]) for _ in range(total)]
        self.queries = [self._near(rng, topics[rng.randrange(TOPICS)]) for _ in range(QUERIES)]

    @staticmethod
    def _near(rng: random.Random, topic: list[float]) -> list[float]:
        return _normalise([x + rng.gauss(0, 0.06) for x in topic])

    def entries(self, thread: int) -> list[EmbeddingEntry]:
        per_thread = len(self.vectors) // THREADS
        start = thread * per_thread
        return [
            EmbeddingEntry(f"m{i}", self.vectors[i], "", "bench")
            for i in range(start, start + per_thread)
        ]


async def _fill(store: Store, corpus: Corpus, url: str | None = None) -> float:
    """Store the corpus; with a PostgreSQL ``url``, build its HNSW indexes after the rows.

    The first save makes the store create its index (and the rows of one thread go through
    it); the rest are loaded with the index set aside and then rebuilt from its own
    definition, as pgvector advises for a bulk load: one insert at a time walks the graph
    (~10 minutes here for 100,000), a build in memory does not. The queries then meet the
    same index the store made.
    """
    started = time.perf_counter()
    await store.save_embeddings("thread-0", corpus.entries(0), **OWNER)
    indexes = await _set_indexes_aside(url) if url else []
    for t in range(1, THREADS):
        await store.save_embeddings(f"thread-{t}", corpus.entries(t), **OWNER)
    if url:
        await _rebuild(url, indexes)
    return time.perf_counter() - started


async def _set_indexes_aside(url: str) -> list[str]:
    """Drop the embeddings' HNSW indexes; their definitions, to build them again."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT indexname, indexdef FROM pg_indexes "
            "WHERE tablename = 'embeddings' AND indexdef LIKE '%USING hnsw%'"
        )
        for row in rows:
            await conn.execute(f'DROP INDEX "{row["indexname"]}"')
        return [row["indexdef"] for row in rows]
    finally:
        await conn.close()


async def _rebuild(url: str, definitions: list[str]) -> None:
    conn = await asyncpg.connect(url)
    try:
        # The graph of 100,000 x 384 fits in well under this: built in memory, not on disk.
        await conn.execute("SET maintenance_work_mem = '1GB'")
        for definition in definitions:
            await conn.execute(definition)
        # As autovacuum would within the minute: the planner must know the table's new size.
        await conn.execute("ANALYZE embeddings")
    finally:
        await conn.close()


def _truth(sqlite_path: str, corpus: Corpus) -> list[set[str]]:
    """Exact top-5 of every query by a full scan."""
    conn = connect(sqlite_path)
    sql = "SELECT message_id FROM embeddings ORDER BY vec_distance_cosine(vector, ?), seq LIMIT 5"
    truth = [{m for (m,) in fetch(conn, sql, [pack_vector(q)])} for q in corpus.queries]
    conn.close()
    return truth


async def _timed(
    store: Store, corpus: Corpus, thread_id: str | None
) -> tuple[list[float], list[set[str]]]:
    timings, found = [], []
    for query in corpus.queries:
        started = time.perf_counter()
        hits = await store.query_embeddings(
            query, thread_id=thread_id, scope="thread" if thread_id else "resource", **OWNER
        )
        timings.append((time.perf_counter() - started) * 1000)
        found.append({h.message_id for h in hits})
    return timings, found


def _p50_p95(timings: list[float]) -> tuple[float, float]:
    ordered = sorted(timings)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.95) - 1]


def _line(label: str, timings: list[float]) -> str:
    p50, p95 = _p50_p95(timings)
    return f"  {label:<15} p50 {p50:7.2f} ms   p95 {p95:7.2f} ms"


async def measure(url: str, corpus: Corpus, truth: list[set[str]]) -> Row:
    """Fill a store at ``url``, print its latencies and recall; the summary row."""
    store = await open_store(url)
    try:
        fill = await _fill(store, corpus, url if store.backend == "postgresql" else None)
        n, dims = len(corpus.vectors), len(corpus.vectors[0])
        print(f"{store.backend} ({store.vector_search}): stored {n:,} x {dims} in {fill:.1f} s")
        timings, found = await _timed(store, corpus, None)
        recall = statistics.mean(len(f & t) / 5 for f, t in zip(found, truth, strict=True))
        print(_line("resource scope", timings) + f"   recall@5 {recall:.3f}")
        print(_line("thread scope", (await _timed(store, corpus, "thread-3"))[0]))
        p50, p95 = _p50_p95(timings)
        return at_most(
            f"semantic recall top-5 over {n:,} vectors, {BACKENDS[store.backend]} "
            f"(`{store.vector_search}`), resource scope, p95",
            p95,
            TARGET_P95_MS,
            "ms",
            f"p95 {p95:.1f} ms (p50 {p50:.1f}), recall@5 {recall:.3f}",
        )
    finally:
        await store.close()


async def _on_fresh_database(server: str, corpus: Corpus, truth: list[set[str]]) -> Row:
    name = f"runyard_bench_{uuid.uuid4().hex[:8]}"
    admin = server.replace("postgresql+asyncpg://", "postgresql://")
    conn = await asyncpg.connect(admin)
    await conn.execute(f'CREATE DATABASE "{name}"')
    try:
        return await measure(f"{admin.rpartition('/')[0]}/{name}", corpus, truth)
    finally:
        await conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        await conn.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vectors", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--pgvector", default=os.environ.get("RUNYARD_TEST_PGVECTOR_URL", ""))
    parser.add_argument("--backend", choices=["sqlite", "pgvector"], help="only this one")
    json_option(parser)
    args = parser.parse_args()
    if args.backend == "pgvector" and not args.pgvector:
        parser.error("--backend pgvector needs --pgvector URL (or RUNYARD_TEST_PGVECTOR_URL)")
    corpus = Corpus(args.vectors, args.dims)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        # Ground truth from its own database, so the measured one starts empty.
        truth_path = str(Path(tmp) / "truth.db")
        store = await open_store(f"sqlite:///{truth_path}", vectors="exact")
        await _fill(store, corpus)
        await store.close()
        truth = _truth(truth_path, corpus)
        if args.backend in (None, "sqlite"):
            rows.append(await measure(f"sqlite:///{Path(tmp) / 'recall.db'}", corpus, truth))
    if args.backend in (None, "pgvector") and args.pgvector:
        rows.append(await _on_fresh_database(args.pgvector, corpus, truth))
    write_rows(args.json, rows)


if __name__ == "__main__":
    asyncio.run(main())
