"""Async engines for SQLite and PostgreSQL, set up for many concurrent writers.

SQLite: ``read`` and ``write`` lend connections of the engine's ``SqlitePool`` and run the parts'
statements straight on the driver (``sqlite_statements``: SQLAlchemy compiles, ``sqlite3`` runs,
no per-statement execution machinery); the engine itself (migrations) keeps SQLAlchemy's pool.
Either way statements run on the loop's thread (``inline_sqlite``: no thread hop per call), WAL
(readers never block the writer), a busy timeout (writers queue instead of failing, waiting in
``asyncio``), ``synchronous=NORMAL`` (durable at checkpoints, fast commits) and foreign keys.
Write transactions start with ``BEGIN IMMEDIATE`` so two writers never both read and then
fail to upgrade their lock (SQLite's "database is locked" despite the busy timeout).

PostgreSQL: ``read`` and ``write`` take a connection of SQLAlchemy's pool and run the
transaction and its statements on asyncpg itself (``postgres_statements``). ``read_one`` and
``write_one`` run a single statement, which PostgreSQL makes a transaction by itself, without
BEGIN and COMMIT: a round trip each saved, two of a single statement's three (BEGIN and COMMIT
were ~13% of a replica's CPU in the service race, docs/benchmarks.md). ``schema_write``
(migrations, extensions) is SQLAlchemy's own connection on either backend.

Both write JSON columns with ``runyard.json_text``, the writer of the wire codec: compact, NUL
kept as ``\\u0000``, lone surrogates as U+FFFD. So every JSON value either backend can store,
the other stores too, and the event log keeps the very text clients got live.

``read`` and ``write`` wait out a database that is briefly away (a restart, a fail-over): taking
the connection is retried with a bounded backoff, for at most ``RECONNECT_SECONDS`` — well under
a run's lease, so a driver that still cannot write stops in time for a takeover. Only what wrote
nothing yet is retried: taking the connection, on PostgreSQL its BEGIN, ``read_one``'s statement,
and ``write_one``'s on a connection the driver knew closed before sending it. A connection lost
*during* a transaction, or under ``write_one``'s sent statement, is raised (it may have
committed). Either way the caller gets ``DatabaseUnavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar, cast
from weakref import WeakKeyDictionary

from sqlalchemy import event
from sqlalchemy.engine import URL, Connection
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.sql.base import Executable
from sqlalchemy.util import await_only

from runyard.json_text import json_text
from runyard.storage.errors import DatabaseUnavailable, StorageError
from runyard.storage.sql import inline_sqlite
from runyard.storage.sql.connection import SqlConnection, SqlResult
from runyard.storage.sql.postgres_statements import PostgresConnection, translated
from runyard.storage.sql.sqlite_pool import BeginMode, SqlitePool
from runyard.storage.unavailable import connection_failed

__all__ = [
    "BUSY_TIMEOUT_MS",
    "RECONNECT_SECONDS",
    "create_engine",
    "dispose",
    "read",
    "read_one",
    "schema_write",
    "write",
    "write_one",
]

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 30_000
RECONNECT_SECONDS = 8.0
"""How long ``read`` and ``write`` keep trying to reach a database that is away."""
_FIRST_DELAY, _LONGEST_DELAY = 0.05, 1.0
_BEGIN_OPTION = "runyard_sqlite_begin"
_POOL_SIZE, _POOL_OVERFLOW, _POOL_TIMEOUT = 10, 10, 30.0
"""Connections kept open, more opened under a burst (closed as they come back), and how long a
transaction waits for one. SQLAlchemy's default keeps 5 open: with more transactions than that
in flight, which a busy replica always has, PostgreSQL connections were opened and closed all
the time, each paying a TLS attempt, authentication and the driver's type introspection (half
the server's CPU per run in the service race). Ten stay within PostgreSQL's default 100
connections for a handful of replicas. SQLite's pool keeps all 20 it may open."""

_T = TypeVar("_T")

_sqlite_pools: WeakKeyDictionary[AsyncEngine, SqlitePool] = WeakKeyDictionary()


def create_engine(url: URL) -> AsyncEngine:
    """An engine for ``url`` (already mapped to ``sqlite+aiosqlite`` or ``postgresql+asyncpg``)."""
    if url.get_backend_name() == "sqlite":
        return _sqlite_engine(url)
    # No pre-ping: it cost three round trips per transaction. ``read`` and ``write`` begin
    # their transaction first thing, and a pooled connection that answers BEGIN with a lost
    # connection is dropped and another taken (_begin_postgres): the ping, for free.
    return create_async_engine(
        url, json_serializer=json_text, pool_size=_POOL_SIZE, max_overflow=_POOL_OVERFLOW
    )


def _sqlite_engine(url: URL) -> AsyncEngine:
    assert url.database is not None  # parse_database_url refuses a SQLite URL without a file
    busy_seconds = BUSY_TIMEOUT_MS / 1000
    engine = create_async_engine(
        url,
        async_creator=inline_sqlite.creator(url.database, busy_seconds),
        json_serializer=json_text,
    )
    _sqlite_pools[engine] = SqlitePool(
        url.database,
        engine.dialect,
        busy_seconds=busy_seconds,
        size=_POOL_SIZE + _POOL_OVERFLOW,
        timeout=_POOL_TIMEOUT,
    )

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(connection: Connection) -> None:
        # Straight to the driver: through SQLAlchemy's statement path (a result, its events),
        # a BEGIN cost as much as an INSERT, and every transaction has one.
        mode = connection.get_execution_options().get(_BEGIN_OPTION, "DEFERRED")
        driver = connection.connection.driver_connection
        assert isinstance(driver, inline_sqlite.InlineConnection)
        await_only(driver.begin(mode))

    return engine


@asynccontextmanager
async def write(engine: AsyncEngine) -> AsyncIterator[SqlConnection]:
    """A connection inside a write transaction, committed on success, rolled back on error."""
    async with _transaction(engine, "IMMEDIATE") as conn:
        yield conn


@asynccontextmanager
async def read(engine: AsyncEngine) -> AsyncIterator[SqlConnection]:
    """A connection inside a read transaction (one consistent snapshot)."""
    async with _transaction(engine, "DEFERRED") as conn:
        yield conn


async def write_one(
    engine: AsyncEngine, statement: Executable, parameters: Any = None
) -> SqlResult:
    """``statement`` (one, or one per row of a list of ``parameters``), committed whole or not
    at all, as ``write`` would: its rows fetched. On PostgreSQL it is sent without BEGIN and
    COMMIT around it (a statement, and asyncpg's ``executemany``, is a transaction by itself):
    one round trip instead of three."""
    return await _one(engine, statement, parameters, "IMMEDIATE", repeatable=False)


async def read_one(engine: AsyncEngine, statement: Executable, parameters: Any = None) -> SqlResult:
    """``statement``'s rows, as ``read`` would give them (one statement sees one snapshot by
    itself): on PostgreSQL one round trip instead of three, as ``write_one``; on SQLite no
    BEGIN and COMMIT around it."""
    return await _one(engine, statement, parameters, "DEFERRED", repeatable=True)


async def _one(
    engine: AsyncEngine,
    statement: Executable,
    parameters: Any,
    sqlite_mode: BeginMode,
    *,
    repeatable: bool,
) -> SqlResult:
    if engine.dialect.driver != "asyncpg":
        pool = _sqlite_pools.get(engine)
        if pool is not None and repeatable:  # a read: SQLite gives a statement its own
            async with pool.outside_transaction() as alone:
                return cast(SqlResult, await alone.execute(statement, parameters))
        async with _transaction(engine, sqlite_mode) as conn:
            return cast(SqlResult, await conn.execute(statement, parameters))

    async def execute(driver: Any, adapter: Any) -> SqlResult:
        return await PostgresConnection(driver, adapter, engine.dialect).execute(
            statement, parameters
        )

    async with _unavailable_as_such():
        conn, _, _, result = await _first_on_pooled(engine, execute, repeatable=repeatable)
        await conn.close()
    return result


@asynccontextmanager
async def _transaction(engine: AsyncEngine, sqlite_mode: BeginMode) -> AsyncIterator[SqlConnection]:
    """The direct path of ``engine``'s backend: its SQLite pool, or asyncpg on PostgreSQL; an
    engine made elsewhere (a test's) gets SQLAlchemy's own connection."""
    pool = _sqlite_pools.get(engine)
    if pool is not None:
        async with pool.transaction(sqlite_mode) as direct:
            yield direct
    elif engine.dialect.driver == "asyncpg":
        async with _postgres_transaction(engine) as postgres:
            yield postgres
    else:
        async with _connected(engine) as conn, conn.begin():
            yield cast(SqlConnection, conn)


@asynccontextmanager
async def _postgres_transaction(engine: AsyncEngine) -> AsyncIterator[PostgresConnection]:
    """A pooled connection inside an asyncpg transaction, its statements run by asyncpg
    (``postgres_statements``); the errors of a database that is away, as ``_connected``'s."""
    async with _unavailable_as_such():
        conn, driver, adapter, transaction = await _begin_postgres(engine)
        # A connection goes back to the pool only once its transaction ended cleanly: one
        # whose COMMIT or ROLLBACK failed or was cancelled half-way may still hold it.
        ended = False
        try:
            yield PostgresConnection(driver, adapter, engine.dialect)
        except BaseException:
            with contextlib.suppress(Exception):  # the body's error is the one to raise
                await transaction.rollback()
                ended = True
            raise
        else:
            try:
                await transaction.commit()
            except Exception as exc:
                raise translated(exc, adapter, engine.dialect, "COMMIT", ()) from exc
            ended = True
        finally:
            if not ended:
                await _drop(conn)
            await conn.close()


async def _begin_postgres(engine: AsyncEngine) -> tuple[AsyncConnection, Any, Any, Any]:
    """A pooled connection with a transaction begun on it (``_first_on_pooled``: BEGIN writes
    nothing, so a lost connection is always worth another)."""

    async def begin(driver: Any, adapter: Any) -> Any:
        try:
            transaction = driver.transaction()  # raises at once on a connection known closed
            await transaction.start()
        except Exception as exc:
            raise translated(exc, adapter, engine.dialect, "BEGIN", ()) from exc
        return transaction

    return await _first_on_pooled(engine, begin, repeatable=True)


async def _first_on_pooled(
    engine: AsyncEngine, first: Callable[[Any, Any], Awaitable[_T]], *, repeatable: bool
) -> tuple[AsyncConnection, Any, Any, _T]:
    """A pooled connection on which ``first`` (given asyncpg's connection and SQLAlchemy's
    adapter of it) succeeded, and what it returned. A connection that fails it as lost (the
    database restarted since it was pooled) is dropped and the next one taken, for at most
    ``RECONNECT_SECONDS`` — when ``first`` is ``repeatable``, or when the driver knew the
    connection closed before ``first`` sent anything; a write lost once sent may have committed,
    and is raised."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RECONNECT_SECONDS
    while True:
        conn = await _connect(engine)
        raw = await conn.get_raw_connection()
        driver, adapter = raw.driver_connection, raw.dbapi_connection
        assert driver is not None
        unsent = driver.is_closed()
        try:
            return conn, driver, adapter, await first(driver, adapter)
        except BaseException as exc:
            # Cancelled mid-way, its state is unknown; lost, it is gone. Refused, the database
            # answered and no transaction is open: the connection serves again.
            lost = not isinstance(exc, Exception) or connection_failed(exc)
            if lost:
                await _drop(conn)
            await conn.close()
            again = isinstance(exc, Exception) and (repeatable or unsent)
            if not lost or not again or loop.time() > deadline:
                raise
            logger.warning("a pooled connection was lost, taking another: %s", exc)


async def _drop(conn: AsyncConnection) -> None:
    """Invalidate ``conn``: the pool closes it instead of lending it again."""
    with contextlib.suppress(Exception):
        await conn.invalidate()


@asynccontextmanager
async def schema_write(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """SQLAlchemy's own connection inside a write transaction, for what needs more than
    statements: migrations (``run_sync``), extensions and their DDL."""
    async with _connected(engine) as conn:
        if engine.dialect.name == "sqlite":
            conn = await conn.execution_options(**{_BEGIN_OPTION: "IMMEDIATE"})
        async with conn.begin():
            yield conn


async def dispose(engine: AsyncEngine) -> None:
    """Close every connection of ``engine``, its SQLite pool's too."""
    pool = _sqlite_pools.pop(engine, None)
    if pool is not None:
        pool.close()
    await engine.dispose()


@asynccontextmanager
async def _connected(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A pooled connection, taken again while the database is away; errors as
    ``_unavailable_as_such`` says."""
    async with _unavailable_as_such():
        conn = await _connect(engine)
        try:
            yield conn
        finally:
            await conn.close()


@asynccontextmanager
async def _unavailable_as_such() -> AsyncIterator[None]:
    """The driver's error for a database that stayed away, or a connection lost mid-way,
    becomes ``DatabaseUnavailable``, and so does a pool that stayed full past its timeout (an
    overload: worth trying again later, never a 500)."""
    try:
        yield
    except PoolTimeout as exc:
        raise DatabaseUnavailable(f"every pooled connection stayed busy: {exc}") from exc
    except Exception as exc:
        if isinstance(exc, StorageError) or not connection_failed(exc):
            raise
        raise DatabaseUnavailable(str(exc) or type(exc).__name__) from exc


async def _connect(engine: AsyncEngine) -> AsyncConnection:
    loop = asyncio.get_running_loop()
    deadline, delay = loop.time() + RECONNECT_SECONDS, _FIRST_DELAY
    while True:
        try:
            return await engine.connect().start()
        except Exception as exc:
            if not connection_failed(exc) or loop.time() + delay > deadline:
                raise
            logger.warning("the database is unavailable, trying again: %s", exc)
        await asyncio.sleep(delay)
        delay = min(delay * 2, _LONGEST_DELAY)
