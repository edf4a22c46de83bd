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
    """Empty every runyard table of the database at ``url`` and restart its sequences, as
    ``TRUNCATE … RESTART IDENTITY`` would. DELETE, because a test leaves a few rows and TRUNCATE
    gives every table new files (with their fsyncs): four times slower, after every test."""
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        async with conn.transaction():
            # Children before parents, for the foreign keys.
            await conn.execute(
                "; ".join(f'DELETE FROM "{t.name}"' for t in reversed(metadata.sorted_tables))
            )
            sequences = await conn.fetch(
                "SELECT sequence_name FROM information_schema.sequences"
                " WHERE sequence_schema = current_schema()"
            )
            for row in sequences:
                await conn.execute(f'ALTER SEQUENCE "{row[0]}" RESTART')
    finally:
        await conn.close()
