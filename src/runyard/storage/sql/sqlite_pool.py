"""``SqlitePool``: the SQLite connections ``read`` and ``write`` lend, one per open transaction.

SQLAlchemy's pool, with its transaction machinery, cost ~100 µs of CPU per transaction, and a
run opens about twenty. A SQLite connection is a file handle, so this pool is a list: a
transaction takes an idle connection (or opens one, up to ``size``), begins, lends it as a
``SqliteConnection``, commits or rolls back, and puts it back. When every connection is lent,
a transaction waits for one, for at most ``timeout`` seconds, then raises
``DatabaseUnavailable`` (an overload: worth trying again, never a 500), as the engine's pool did.

A connection whose rollback failed is closed instead of reused: it may still hold a transaction.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections import deque
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Literal

from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError

from runyard.storage.errors import DatabaseUnavailable
from runyard.storage.sql import inline_sqlite
from runyard.storage.sql.sqlite_statements import SqliteConnection

__all__ = ["SqlitePool"]

BeginMode = Literal["DEFERRED", "IMMEDIATE"]


class SqlitePool:
    """At most ``size`` connections to one SQLite file, lent a transaction at a time."""

    def __init__(
        self, path: str, dialect: Dialect, *, busy_seconds: float, size: int, timeout: float
    ) -> None:
        self._path = path
        self._dialect = dialect
        self._busy_seconds = busy_seconds
        self._size = size
        self._timeout = timeout
        self._idle: list[inline_sqlite.InlineConnection] = []
        self._opened = 0
        self._waiting: deque[asyncio.Future[None]] = deque()
        self._closed = False

    @asynccontextmanager
    async def transaction(self, mode: BeginMode) -> AsyncIterator[SqliteConnection]:
        """A connection inside a transaction begun ``mode``: committed when the block ends,
        rolled back when it raises."""
        conn = await self._take()
        healthy = False
        try:
            await _driver_call(conn.begin(mode), f"BEGIN {mode}")
            yield SqliteConnection(conn, self._dialect)
            await _driver_call(conn.commit(), "COMMIT")
            healthy = True
        finally:
            if not healthy:
                healthy = not conn.in_transaction or await _rolled_back(conn)
            self._give_back(conn, healthy)

    @asynccontextmanager
    async def outside_transaction(self) -> AsyncIterator[SqliteConnection]:
        """A connection with no transaction begun, for one read: SQLite runs a statement
        outside a transaction in one of its own (one snapshot), so a read alone needs no BEGIN
        and COMMIT around it."""
        conn = await self._take()
        try:
            yield SqliteConnection(conn, self._dialect)
        finally:
            self._give_back(conn, not conn.in_transaction)

    def close(self) -> None:
        """Close the idle connections; those lent are closed as they come back."""
        self._closed = True
        for conn in self._idle:
            conn.stop()
        self._idle.clear()

    async def _take(self) -> inline_sqlite.InlineConnection:
        while True:
            if self._idle:
                return self._idle.pop()
            if self._opened < self._size:
                self._opened += 1
                try:
                    return await self._open()
                except BaseException:
                    self._opened -= 1
                    raise
            waiter = asyncio.get_running_loop().create_future()
            self._waiting.append(waiter)
            try:
                async with asyncio.timeout(self._timeout):
                    await waiter
            except TimeoutError:
                raise DatabaseUnavailable(
                    f"every pooled connection stayed busy for {self._timeout:g} s"
                ) from None
            finally:
                if waiter in self._waiting:
                    self._waiting.remove(waiter)

    async def _open(self) -> inline_sqlite.InlineConnection:
        return await inline_sqlite.creator(self._path, self._busy_seconds)()

    def _give_back(self, conn: inline_sqlite.InlineConnection, healthy: bool) -> None:
        if healthy and not self._closed:
            self._idle.append(conn)
        else:
            self._opened -= 1
            conn.stop()
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                break


async def _driver_call(call: Awaitable[None], sql: str) -> None:
    """Await ``call``; the driver's error as SQLAlchemy's, as for every statement."""
    try:
        await call
    except sqlite3.Error as exc:
        raise DBAPIError.instance(sql, (), exc, sqlite3.Error) from exc


async def _rolled_back(conn: inline_sqlite.InlineConnection) -> bool:
    try:
        await conn.rollback()
    except sqlite3.Error:
        return False
    return True
