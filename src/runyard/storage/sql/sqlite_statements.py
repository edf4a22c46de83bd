"""SQLite's side of ``direct_statements``: a transaction's statements run by ``sqlite3`` on the
loop's thread (``inline_sqlite``: a lock held elsewhere is waited out in ``asyncio``).

Errors keep SQLAlchemy's classes (``IntegrityError``, ``OperationalError``, …, the driver's
error as ``orig``), so the parts catch them as on PostgreSQL.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.base import Executable

from runyard.storage.sql.direct_statements import DirectConnection, DirectResult
from runyard.storage.sql.inline_sqlite import InlineConnection

__all__ = ["SqliteConnection"]


class SqliteConnection(DirectConnection):
    """A SQLite connection inside one transaction, with the face of ``SqlConnection``."""

    __slots__ = ("_conn",)

    def __init__(self, conn: InlineConnection, dialect: Dialect) -> None:
        super().__init__(dialect)
        self._conn = conn

    async def execute(self, statement: Executable, parameters: Any = None) -> DirectResult:
        bound = self._statements.bind(statement, parameters)
        try:
            if bound.many:
                cursor = await self._conn.executemany(bound.sql, bound.values)
            else:
                cursor = await self._conn.execute(bound.sql, bound.values[0])
            described = cursor.description
            fetched = cursor.fetchall() if described is not None else []
        except sqlite3.Error as exc:
            raise DBAPIError.instance(
                bound.sql, bound.values, exc, sqlite3.Error, dialect=self._dialect
            ) from exc
        names = [d[0] for d in described or ()]
        return bound.result(fetched, cursor.rowcount, names)
