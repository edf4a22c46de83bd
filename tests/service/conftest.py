"""Fixtures for the service tests: a real store (SQLite file, or PostgreSQL), a bus, an event log.

PostgreSQL runs use a private database on ``RUNYARD_TEST_POSTGRES_URL``'s server; without a server
those cases are skipped, unless ``RUNYARD_TEST_REQUIRE_SERVICES=1``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from postgres_databases import private_database, truncate_all
from runyard.service import EventLog
from runyard.service.bus import InProcessEventBus
from runyard.storage import Store, open_store
from sqlite_databases import MigratedSqlite


@pytest.fixture(scope="session")
def postgresql_server_db() -> Iterator[str]:
    """A private database on the test PostgreSQL server for this session."""
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_service")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(
    request: pytest.FixtureRequest, tmp_path: Path, migrated_sqlite: MigratedSqlite
) -> Iterator[str]:
    """A migrated SQLite file, then the test PostgreSQL (truncated after each test)."""
    if request.param == "sqlite":
        yield migrated_sqlite.file(tmp_path / "runyard.db")
        return
    url: str = request.getfixturevalue("postgresql_server_db")
    yield url
    asyncio.run(truncate_all(url))


@pytest.fixture
def sqlite_url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    """A migrated SQLite file of this test."""
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
async def store(sqlite_url: str) -> AsyncIterator[Store]:
    """An opened SQLite store."""
    opened = await open_store(sqlite_url)
    yield opened
    await opened.close()


@pytest.fixture
async def event_log(store: Store) -> AsyncIterator[EventLog]:
    """An event log over ``store`` and an in-process bus."""
    bus = InProcessEventBus()
    log = EventLog(store, bus, tail_size=8)
    yield log
    await log.close()
    await bus.close()
