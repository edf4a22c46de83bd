"""Private PostgreSQL databases for tests, shared by every suite that needs one.

``RUNYARD_TEST_POSTGRES_URL`` names a plain PostgreSQL server, ``RUNYARD_TEST_PGVECTOR_URL`` one
with pgvector. Each caller gets a database of its own on that server, dropped afterwards, so
parallel sessions never see each other's rows. Without the server the tests skip, unless
``RUNYARD_TEST_REQUIRE_SERVICES=1`` (as in CI), when they fail instead.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator

import asyncpg
import pytest

from runyard.storage.sql.schema import metadata

__all__ = ["admin", "private_database", "truncate_all", "unavailable"]


def unavailable(reason: str) -> None:
    """Skip, or fail when the run requires its services."""
    if os.environ.get("RUNYARD_TEST_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{reason} (RUNYARD_TEST_REQUIRE_SERVICES=1: these tests must run)")
    pytest.skip(reason)


async def admin(url: str, sql: str) -> None:
    """Run one statement on ``url`` outside any transaction (CREATE/DROP DATABASE, TRUNCATE)."""
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def private_database(variable: str, prefix: str) -> Iterator[str]:
    """Yield the URL of a fresh database on the server named by ``variable``; drop it after."""
    server = os.environ.get(variable, "")
    if not server:
        unavailable(f"{variable} is not set; start the servers as .ci/run does")
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    try:
        asyncio.run(admin(server, f'CREATE DATABASE "{name}"'))
    except (OSError, asyncpg.PostgresError) as exc:
        unavailable(f"cannot reach {variable}={server}: {exc}")
    yield f"{server.rpartition('/')[0]}/{name}"
    asyncio.run(admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def truncate_all(url: str) -> None:
    """Empty every runyard table of the database at ``url``."""
    names = ", ".join(table.name for table in metadata.sorted_tables)
    await admin(url, f"TRUNCATE {names} RESTART IDENTITY")
