"""What the store's parts ask of a connection inside ``read`` or ``write``: the seam between them
and whichever executes their statements (SQLAlchemy's ``AsyncConnection`` on PostgreSQL, the
direct SQLite path of ``sqlite_statements`` on SQLite)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from sqlalchemy.engine import Dialect
from sqlalchemy.sql.base import Executable

__all__ = ["SqlConnection", "SqlResult"]


class SqlResult(Protocol):
    """The part of SQLAlchemy's ``CursorResult`` the parts use."""

    @property
    def rowcount(self) -> int: ...

    def __iter__(self) -> Iterator[Any]: ...

    def all(self) -> Any: ...

    def fetchall(self) -> Any: ...

    def one(self) -> Any: ...

    def one_or_none(self) -> Any: ...

    def scalar_one(self) -> Any: ...

    def scalar_one_or_none(self) -> Any: ...

    def scalars(self) -> Any: ...


class SqlConnection(Protocol):
    """A connection inside one transaction."""

    @property
    def dialect(self) -> Dialect: ...

    async def execute(self, statement: Executable, parameters: Any = None) -> Any: ...

    async def scalar(self, statement: Executable) -> Any: ...

    async def scalars(self, statement: Executable) -> Any: ...
