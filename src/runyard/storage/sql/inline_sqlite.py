"""SQLite statements run on the event loop's own thread, under SQLAlchemy's aiosqlite dialect.

aiosqlite runs every call (a cursor, a statement, its rows, a commit) on a thread of its own and
wakes the loop for each answer: a run's ~50 statements paid ~100 µs of thread hand-off each,
more than SQLite took to run them (a local statement takes microseconds). This module gives the
dialect a connection with aiosqlite's face whose calls run at once on the calling thread
(``create_async_engine(..., async_creator=creator(path))``); SQLAlchemy, its pool and its
transactions are unchanged.

The one call that may wait is a lock: SQLite's own busy handler would sleep on the loop's thread,
and the writer it waits for may be a coroutine of this very loop (a deadlock). So the connection's
busy timeout is 0 and a statement SQLite answers "busy" is tried again after an ``asyncio`` sleep,
for up to ``busy_seconds``, which is what the busy handler did, without stopping the loop. A busy
answer means SQLite ran nothing, so trying again is safe; ``SQLITE_BUSY_SNAPSHOT`` (a stale read
snapshot that wants to write) is raised at once, as the busy handler does.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

__all__ = ["InlineConnection", "configure", "connect", "creator"]

_T = TypeVar("_T")

_RETRYABLE = frozenset({5, 261})
"""SQLITE_BUSY and SQLITE_BUSY_RECOVERY: another connection holds the lock for now."""
_FIRST_DELAY, _LONGEST_DELAY = 0.0005, 0.02


def creator(path: str, busy_seconds: float) -> Callable[[], Awaitable[InlineConnection]]:
    """The ``async_creator`` of an engine on the SQLite file at ``path``."""

    async def create() -> InlineConnection:
        conn = connect(path, busy_seconds)
        try:
            # Turning WAL on wants a moment alone with the file: another process opening or
            # migrating it at the same time answers busy, so wait as statements do.
            await conn.patiently(configure, conn.driver)
        except BaseException:
            conn.stop()
            raise
        return conn

    return create


def connect(path: str, busy_seconds: float) -> InlineConnection:
    """A connection to the SQLite file at ``path``."""
    # isolation_level None: BEGIN is the caller's (it chooses DEFERRED or IMMEDIATE).
    conn = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
    return InlineConnection(conn, busy_seconds)


def configure(conn: sqlite3.Connection) -> None:
    """WAL (readers never block the writer), fast commits, foreign keys: every connection's."""
    # No busy_timeout pragma: waiting for a lock is the connection's (``patiently``).
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON"):
        conn.execute(f"PRAGMA {pragma}")


class InlineConnection:
    """aiosqlite's ``Connection`` as SQLAlchemy's adapter uses it, over a ``sqlite3`` one."""

    def __init__(self, conn: sqlite3.Connection, busy_seconds: float) -> None:
        self._conn = conn
        self._busy_seconds = busy_seconds
        self._open = True

    @property
    def _connection(self) -> bool:
        """What the adapter checks before a commit or a rollback: still open."""
        return self._open

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction

    @property
    def isolation_level(self) -> str | None:
        return self._conn.isolation_level

    @property
    def driver(self) -> sqlite3.Connection:
        return self._conn

    def cursor(self) -> InlineCursor:
        return InlineCursor(self, self._conn.cursor())

    async def begin(self, mode: str) -> None:
        """``BEGIN mode`` (``DEFERRED`` or ``IMMEDIATE``), waiting out a lock held elsewhere."""
        await self.patiently(self._conn.execute, f"BEGIN {mode}")

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement; its cursor holds the rows."""
        return await self.patiently(self._conn.execute, sql, parameters)

    async def executemany(self, sql: str, parameters: Sequence[Sequence[Any]]) -> sqlite3.Cursor:
        return await self.patiently(self._conn.executemany, sql, parameters)

    async def commit(self) -> None:
        await self.patiently(self._conn.commit)

    async def rollback(self) -> None:
        self._conn.rollback()

    async def close(self) -> None:
        self.stop()

    def stop(self) -> None:
        """What the adapter's forced close calls."""
        self._open = False
        self._conn.close()

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._conn.create_function(*args, **kwargs)

    async def patiently(self, call: Callable[..., _T], *args: Any) -> _T:
        """``call(*args)``, tried again while SQLite answers busy, for up to ``busy_seconds``."""
        loop = asyncio.get_running_loop()
        deadline, delay = None, _FIRST_DELAY
        while True:
            try:
                return call(*args)
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode not in _RETRYABLE:
                    raise
                now = loop.time()
                deadline = now + self._busy_seconds if deadline is None else deadline
                if now + delay > deadline:
                    raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, _LONGEST_DELAY)


class InlineCursor:
    """aiosqlite's ``Cursor`` (and its ``async with``) over a ``sqlite3`` cursor."""

    __slots__ = ("_cursor", "_owner")

    def __init__(self, owner: InlineConnection, cursor: sqlite3.Cursor) -> None:
        self._owner = owner
        self._cursor = cursor

    async def __aenter__(self) -> InlineCursor:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self._cursor.close()

    async def execute(self, sql: str, parameters: Any = ()) -> InlineCursor:
        await self._owner.patiently(self._cursor.execute, sql, parameters)
        return self

    async def executemany(self, sql: str, parameters: Iterable[Any]) -> InlineCursor:
        # A list, so a second try after "busy" binds every row again.
        await self._owner.patiently(self._cursor.executemany, sql, list(parameters))
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(self._cursor.arraysize if size is None else size)

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()

    async def setinputsizes(self, *_sizes: Any) -> None:
        return None

    async def nextset(self) -> None:
        return None

    @property
    def description(self) -> Sequence[Any] | None:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value
