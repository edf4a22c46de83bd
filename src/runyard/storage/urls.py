"""Database URLs users write, mapped to the backend and driver that serve them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from runyard.storage.errors import InvalidDatabaseURL
from runyard.storage.protocol import Backend

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

__all__ = ["DatabaseURL", "parse_database_url"]

_MEMORY = {":memory:", "memory://", "memory:", "memory"}
_POSTGRES = {"postgresql", "postgres", "postgresql+asyncpg"}
_SQLITE = {"sqlite", "sqlite+aiosqlite"}


@dataclass(frozen=True, slots=True)
class DatabaseURL:
    """What a URL resolved to: the backend and, for SQL ones, the SQLAlchemy async URL."""

    backend: Backend
    sqlalchemy_url: URL | None = None

    @property
    def sqlite_path(self) -> str | None:
        """The database file of a SQLite URL."""
        if self.backend != "sqlite" or self.sqlalchemy_url is None:
            return None
        return self.sqlalchemy_url.database


def parse_database_url(url: str) -> DatabaseURL:
    """Accepts ``sqlite:///path``, ``sqlite+aiosqlite:///path``, ``postgresql://…`` (and
    ``postgres://``, ``postgresql+asyncpg://``), and ``memory://`` / ``:memory:``."""
    # Imported here: SQLAlchemy costs about half a second, paid once a SQL database is named.
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    text = url.strip()
    if text in _MEMORY:
        return DatabaseURL("memory")
    try:
        parsed = make_url(text)
    except ArgumentError as exc:
        raise InvalidDatabaseURL(f"not a database URL: {url!r}") from exc
    if parsed.drivername in _SQLITE:
        return _sqlite(parsed, url)
    if parsed.drivername in _POSTGRES:
        return DatabaseURL("postgresql", _postgres(parsed))
    raise InvalidDatabaseURL(
        f"unsupported database URL {url!r}: use sqlite:///path, postgresql://… or memory://"
    )


def _sqlite(parsed: URL, original: str) -> DatabaseURL:
    if parsed.database in (None, "", ":memory:"):
        raise InvalidDatabaseURL(
            f"{original!r} names no database file; use memory:// for a store that lives in memory"
        )
    return DatabaseURL("sqlite", parsed.set(drivername="sqlite+aiosqlite"))


def _postgres(parsed: URL) -> URL:
    # asyncpg spells libpq's sslmode as ssl.
    query = dict(parsed.query)
    if "sslmode" in query:
        query["ssl"] = query.pop("sslmode")
    return parsed.set(drivername="postgresql+asyncpg", query=query)
