"""SQLite statements run on the loop's thread (``inline_sqlite``): a lock held elsewhere is waited
out without stopping the loop, for at most the busy timeout, and writers of one loop never
deadlock on each other."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from runyard.storage.sql import inline_sqlite
from runyard.storage.sql.engine import create_engine, read, write


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(make_url(f"sqlite+aiosqlite:///{tmp_path / 'inline.db'}"))
    async with write(engine) as conn:
        await conn.execute(text("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"))
    yield engine
    await engine.dispose()


def _locker(engine: AsyncEngine) -> sqlite3.Connection:
    """Another connection to the file (as another process would have), holding the write lock."""
    assert engine.url.database is not None
    other = sqlite3.connect(engine.url.database, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    return other


async def _count(engine: AsyncEngine) -> int:
    async with read(engine) as conn:
        return int((await conn.execute(text("SELECT count(*) FROM notes"))).scalar_one())


async def test_a_writer_waits_for_a_lock_held_elsewhere_while_the_loop_runs_on(
    engine: AsyncEngine,
) -> None:
    other = _locker(engine)

    async def insert() -> None:
        async with write(engine) as conn:
            await conn.execute(text("INSERT INTO notes (body) VALUES ('after the lock')"))

    writer = asyncio.create_task(insert())
    for _ in range(20):  # the loop turns while the writer waits: it is not blocked in SQLite
        await asyncio.sleep(0.001)
    assert not writer.done()
    other.execute("COMMIT")
    other.close()
    await writer
    assert await _count(engine) == 1


async def test_a_lock_held_past_the_busy_timeout_fails_the_statement(tmp_path: Path) -> None:
    path = str(tmp_path / "held.db")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("PRAGMA journal_mode=WAL")  # as runyard's own file is: opening it needs no lock
    other.execute("CREATE TABLE t (x)")
    other.execute("BEGIN IMMEDIATE")
    conn = await inline_sqlite.creator(path, 0.05)()
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            await conn.cursor().execute("BEGIN IMMEDIATE")
    finally:
        await conn.close()
        other.execute("ROLLBACK")
        other.close()


async def test_a_connection_opened_while_another_holds_the_file_waits_to_turn_wal_on(
    tmp_path: Path,
) -> None:
    # Two servers starting on one new file: the second's first connection met the first's
    # migration holding the lock and failed the whole start-up ("database is locked").
    path = str(tmp_path / "new.db")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("CREATE TABLE t (x)")
    other.execute("BEGIN IMMEDIATE")
    opening = asyncio.create_task(inline_sqlite.creator(path, 5)())
    await asyncio.sleep(0)  # its first try meets the lock, and it waits
    assert not opening.done()
    other.execute("ROLLBACK")
    other.close()
    conn = await opening
    try:
        assert conn.driver.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        await conn.close()


async def test_writers_of_one_loop_that_await_inside_their_transactions_all_commit(
    engine: AsyncEngine,
) -> None:
    async def writer(n: int) -> None:
        async with write(engine) as conn:
            await conn.execute(text("INSERT INTO notes (body) VALUES (:b)"), {"b": f"{n}a"})
            await asyncio.sleep(0)  # another writer's BEGIN IMMEDIATE finds the lock taken
            await conn.execute(text("INSERT INTO notes (body) VALUES (:b)"), {"b": f"{n}b"})

    await asyncio.gather(*(writer(n) for n in range(30)))
    assert await _count(engine) == 60


async def test_a_failed_statement_rolls_back_and_the_connection_serves_on(
    engine: AsyncEngine,
) -> None:
    async def failing() -> None:
        async with write(engine) as conn:
            await conn.execute(text("INSERT INTO notes (body) VALUES ('rolled back')"))
            await conn.execute(text("INSERT INTO missing VALUES (1)"))

    with pytest.raises(Exception, match="no such table"):
        await failing()
    async with write(engine) as conn:
        await conn.execute(text("INSERT INTO notes (body) VALUES ('kept')"))
    assert await _count(engine) == 1
