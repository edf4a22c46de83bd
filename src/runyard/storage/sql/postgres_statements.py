"""PostgreSQL's side of ``direct_statements``: a transaction's statements run by ``asyncpg``.

The connection is one of SQLAlchemy's pool (``engine.read``/``write`` take it; SQLAlchemy's
asyncpg dialect set its JSON codecs up when it connected), the transaction and the statements are
asyncpg's own calls (its prepared-statement cache included). A driver error is translated as
SQLAlchemy's adapter translates it and wrapped as SQLAlchemy wraps it (``IntegrityError``,
``OperationalError``, … with ``orig`` and its ``sqlstate``), so the parts and
``connection_failed`` read it as before.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.elements import TextClause

from runyard.storage.sql.direct_statements import Bound, DirectConnection, DirectResult

__all__ = ["PostgresConnection", "translated"]

_COUNTED = re.compile(r"(?:SELECT|UPDATE|DELETE|INSERT \d+|MERGE) (\d+)")


class PostgresConnection(DirectConnection):
    """An asyncpg connection inside one transaction, with the face of ``SqlConnection``."""

    __slots__ = ("_adapter", "_conn")

    def __init__(self, conn: Any, adapter: Any, dialect: Dialect) -> None:
        super().__init__(dialect)
        self._conn = conn
        self._adapter = adapter

    async def execute(self, statement: Executable, parameters: Any = None) -> DirectResult:
        bound = self._statements.bind(statement, parameters)
        try:
            return await self._run(statement, bound)
        except Exception as exc:
            raise translated(exc, self._adapter, self._dialect, bound.sql, bound.values) from exc

    async def _run(self, statement: Executable, bound: Bound) -> DirectResult:
        if bound.many:
            await self._conn.executemany(bound.sql, bound.values)
            return bound.result([], -1, ())
        values = bound.values[0]
        if bound.shape.row is None and not isinstance(statement, TextClause):
            # No rows to fetch: the status ("UPDATE 3") says how many rows it changed.
            status = await self._conn.execute(bound.sql, *values)
            counted = _COUNTED.match(status or "")
            return bound.result([], int(counted.group(1)) if counted else -1, ())
        records = await self._conn.fetch(bound.sql, *values)
        names = list(records[0].keys()) if records else []
        return bound.result(records, len(records), names)


def translated(exc: Exception, adapter: Any, dialect: Dialect, sql: str, values: Any) -> Exception:
    """``exc`` from asyncpg as SQLAlchemy would have raised it."""
    try:
        adapter._handle_exception(exc)  # raises the adapter's DB-API error for it
    except Exception as adapted:
        # As SQLAlchemy marks it: a connection the driver found closed is "invalidated", which
        # is how ``connection_failed`` tells a lost connection from the database's refusal.
        lost = dialect.is_disconnect(adapted, adapter, None)  # type: ignore[arg-type]
        error: Exception = DBAPIError.instance(
            sql,
            values,
            adapted,
            dialect.loaded_dbapi.Error,
            dialect=dialect,
            connection_invalidated=lost,
        )
        return error
    return exc  # pragma: no cover - _handle_exception always raises
