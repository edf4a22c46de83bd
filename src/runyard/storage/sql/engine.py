"""Async engines for SQLite and PostgreSQL, set up for many concurrent writers.

SQLite: WAL (readers never block the writer), a busy timeout (writers queue instead of
failing), ``synchronous=NORMAL`` (durable at checkpoints, fast commits) and foreign keys.
Write transactions start with ``BEGIN IMMEDIATE`` so two writers never both read and then
fail to upgrade their lock (SQLite's "database is locked" despite the busy timeout).

Both write JSON columns with ``runyard.json_text``, the writer of the wire codec: compact, NUL
kept as ``\\u0000``, lone surrogates as U+FFFD. So every JSON value either backend can store,
the other stores too, and the event log keeps the very text clients got live.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from runyard.json_text import json_text

__all__ = ["BUSY_TIMEOUT_MS", "create_engine", "read", "write"]

BUSY_TIMEOUT_MS = 30_000
_BEGIN_OPTION = "runyard_sqlite_begin"


def create_engine(url: URL) -> AsyncEngine:
    """An engine for ``url`` (already mapped to ``sqlite+aiosqlite`` or ``postgresql+asyncpg``)."""
    if url.get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    return create_async_engine(url, pool_pre_ping=True, json_serializer=json_text)


def _sqlite_engine(url: URL) -> AsyncEngine:
    engine = create_async_engine(
        url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000}, json_serializer=json_text
    )

    @event.listens_for(engine.sync_engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from the driver so BEGIN is ours (see _begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in (
            "journal_mode=WAL",
            f"busy_timeout={BUSY_TIMEOUT_MS}",
            "synchronous=NORMAL",
            "foreign_keys=ON",
        ):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(_BEGIN_OPTION, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


@asynccontextmanager
async def write(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection inside a write transaction, committed on success, rolled back on error."""
    async with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            conn = await conn.execution_options(**{_BEGIN_OPTION: "IMMEDIATE"})
        async with conn.begin():
            yield conn


@asynccontextmanager
async def read(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A connection inside a read transaction (one consistent snapshot)."""
    async with engine.connect() as conn, conn.begin():
        yield conn
