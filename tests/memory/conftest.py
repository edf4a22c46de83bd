"""Fixtures for memory tests: a fresh store per test on the in-memory, SQLite and PostgreSQL
backends (PostgreSQL when ``RUNYARD_TEST_POSTGRES_URL`` is set, as ``.ci/run`` does)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from runyard.storage import Store, open_store
from runyard.storage.sql.schema import metadata


async def _admin(url: str, sql: str) -> None:
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def memory_postgres_url() -> Iterator[str]:
    """A private database for this session on the test PostgreSQL server."""
    server = os.environ.get("RUNYARD_TEST_POSTGRES_URL", "")
    if not server:
        if os.environ.get("RUNYARD_TEST_REQUIRE_SERVICES") == "1":
            pytest.fail("RUNYARD_TEST_POSTGRES_URL is not set")
        pytest.skip("RUNYARD_TEST_POSTGRES_URL is not set")
    name = f"runyard_memory_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin(server, f'CREATE DATABASE "{name}"'))
    yield f"{server.rpartition('/')[0]}/{name}"
    asyncio.run(_admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of the backend under test."""
    if request.param == "postgresql":
        url: str = request.getfixturevalue("memory_postgres_url")
        return url
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'memory.db'}"
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
            tables = ", ".join(table.name for table in metadata.sorted_tables)
            await _admin(url, f"TRUNCATE {tables} RESTART IDENTITY")
