"""Fixtures of the HTTP tests that run on both backends."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from postgres_databases import private_database, truncate_all
from sqlite_databases import MigratedSqlite


@pytest.fixture(scope="session")
def postgresql_db() -> Iterator[str]:
    """A private database on the test PostgreSQL server for this session."""
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_http")


@pytest.fixture(params=["sqlite", "postgresql"])
def any_backend_url(
    request: pytest.FixtureRequest, tmp_path: Path, migrated_sqlite: MigratedSqlite
) -> Iterator[str]:
    """A migrated SQLite file, then the test PostgreSQL (emptied after each test)."""
    if request.param == "sqlite":
        yield migrated_sqlite.file(tmp_path / "runyard.db")
        return
    database: str = request.getfixturevalue("postgresql_db")
    yield database
    asyncio.run(truncate_all(database))
