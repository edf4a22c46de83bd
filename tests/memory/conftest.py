"""Fixtures for memory tests: a fresh store per test on the in-memory, SQLite and PostgreSQL
backends (PostgreSQL when ``RUNYARD_TEST_POSTGRES_URL`` is set, as ``.ci/run`` does)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from postgres_databases import private_database, truncate_all
from runyard.storage import Store, open_store
from sqlite_databases import MigratedSqlite


@pytest.fixture(scope="session")
def memory_postgres_url() -> Iterator[str]:
    """A private database for this session on the test PostgreSQL server."""
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_memory")


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def store_url(
    request: pytest.FixtureRequest, tmp_path: Path, migrated_sqlite: MigratedSqlite
) -> str:
    """The URL of the backend under test (a SQLite file already migrated)."""
    if request.param == "postgresql":
        url: str = request.getfixturevalue("memory_postgres_url")
        return url
    if request.param == "sqlite":
        return migrated_sqlite.file(tmp_path / "memory.db")
    return "memory://"


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    """A ready, empty store."""
    url = store_url
    opened = await open_store(url)
    try:
        yield opened
    finally:
        await opened.close()
        if url.startswith("postgresql"):
            await truncate_all(url)
