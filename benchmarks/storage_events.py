"""Event-log appends per second, batched, on SQLite and PostgreSQL.

    python benchmarks/storage_events.py [--events 200000] [--batch 500] [--postgres URL]
                                        [--backend sqlite|postgresql] [--json PATH]

Appends text-delta-sized events to one thread's log in batches (what the service's event
writer does), through the public ``Store.append_events``. PostgreSQL is measured when a URL
is given (or RUNYARD_TEST_POSTGRES_URL is set); the benchmark uses a fresh database on it.
``--backend`` measures one backend only; ``--json PATH`` writes the summary rows against the
targets (SQLite ≥ 50,000 events/s, PostgreSQL ≥ 30,000, in batches of 500).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
import uuid
from pathlib import Path

import asyncpg
from _report import Row, at_least, json_option, write_rows

from runyard.storage import StoredEvent, open_store


def _batches(total: int, batch: int) -> list[list[StoredEvent]]:
    events = [
        StoredEvent(
            "bench", i, "run_bench", "text-delta", {"text": f"word{i} ", "agentId": "a1"}, i
        )
        for i in range(1, total + 1)
    ]
    return [events[i : i + batch] for i in range(0, total, batch)]


async def measure(url: str, total: int, batch: int) -> float:
    """Events appended per second at ``url``."""
    store = await open_store(url, vectors="exact")
    batches = _batches(total, batch)
    try:
        started = time.perf_counter()
        for chunk in batches:
            await store.append_events("bench", chunk)
        elapsed = time.perf_counter() - started
        assert await store.last_event_id("bench") == total
    finally:
        await store.close()
    return total / elapsed


async def _with_fresh_database(server: str, total: int, batch: int) -> float:
    name = f"runyard_bench_{uuid.uuid4().hex[:8]}"
    admin = server.replace("postgresql+asyncpg://", "postgresql://")
    conn = await asyncpg.connect(admin)
    await conn.execute(f'CREATE DATABASE "{name}"')
    try:
        return await measure(f"{admin.rpartition('/')[0]}/{name}", total, batch)
    finally:
        await conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        await conn.close()


TARGETS = {"sqlite": ("SQLite", 50_000), "postgresql": ("PostgreSQL", 30_000)}
"""Events per second each backend should append, in batches of 500."""


def _row(backend: str, rate: float, events: int, batch: int) -> Row:
    name, target = TARGETS[backend]
    what = f"event-log appends, {name} (batch {batch}, {events:,} events)"
    return at_least(what, rate, target, "events/s")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--postgres", default=os.environ.get("RUNYARD_TEST_POSTGRES_URL", ""))
    parser.add_argument("--backend", choices=list(TARGETS), help="only this one (default: both)")
    json_option(parser)
    args = parser.parse_args()
    rows = []
    if args.backend in (None, "sqlite"):
        with tempfile.TemporaryDirectory() as tmp:
            rate = await measure(f"sqlite:///{Path(tmp) / 'bench.db'}", args.events, args.batch)
        print(f"sqlite      {args.events:>8} events, batch {args.batch}: {rate:>10,.0f} events/s")
        rows.append(_row("sqlite", rate, args.events, args.batch))
    if args.backend == "postgresql" and not args.postgres:
        parser.error("--backend postgresql needs --postgres URL (or RUNYARD_TEST_POSTGRES_URL)")
    if args.backend in (None, "postgresql") and args.postgres:
        rate = await _with_fresh_database(args.postgres, args.events, args.batch)
        print(f"postgresql  {args.events:>8} events, batch {args.batch}: {rate:>10,.0f} events/s")
        rows.append(_row("postgresql", rate, args.events, args.batch))
    write_rows(args.json, rows)


if __name__ == "__main__":
    asyncio.run(main())
