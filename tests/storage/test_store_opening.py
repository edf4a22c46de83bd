"""Opening stores: URLs, migrations from an empty database, which vector search is used, and
that every backend is a whole ``Store``."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, inspect, text
from sqlalchemy.ext.asyncio import AsyncConnection
from store_parts import assert_implements

from postgres_databases import private_database
from runyard.storage import InvalidDatabaseURL, Store, open_store, upgrade
from runyard.storage.inmemory import InMemoryStore
from runyard.storage.migrations import (
    at_head,
    head_revision,
    newest_file_revision,
    upgrade_to,
    upgrade_to_head,
)
from runyard.storage.sql import SqlStore
from runyard.storage.sql.engine import create_engine, schema_write
from runyard.storage.sql.schema import metadata
from runyard.storage.urls import parse_database_url


@pytest.mark.parametrize(
    ("url", "backend", "driver"),
    [
        ("memory://", "memory", None),
        (":memory:", "memory", None),
        ("sqlite:///runyard.db", "sqlite", "sqlite+aiosqlite"),
        ("sqlite+aiosqlite:////tmp/x.db", "sqlite", "sqlite+aiosqlite"),
        ("postgresql://u@h:5432/db", "postgresql", "postgresql+asyncpg"),
        ("postgres://u@h/db", "postgresql", "postgresql+asyncpg"),
        ("postgresql+asyncpg://u@h/db", "postgresql", "postgresql+asyncpg"),
    ],
)
def test_urls_map_to_backend_and_driver(url: str, backend: str, driver: str | None) -> None:
    parsed = parse_database_url(url)
    assert parsed.backend == backend
    assert (parsed.sqlalchemy_url.drivername if parsed.sqlalchemy_url else None) == driver


def test_libpq_sslmode_is_passed_to_asyncpg_as_ssl() -> None:
    parsed = parse_database_url("postgresql://u@h/db?sslmode=require")
    assert parsed.sqlalchemy_url is not None
    assert dict(parsed.sqlalchemy_url.query) == {"ssl": "require"}


@pytest.mark.parametrize("url", ["mysql://u@h/db", "sqlite://", "sqlite:///:memory:", "nonsense"])
def test_unsupported_urls_are_refused_with_a_clear_error(url: str) -> None:
    with pytest.raises(InvalidDatabaseURL):
        parse_database_url(url)


async def test_memory_url_opens_the_in_memory_store() -> None:
    store = await open_store("memory://")
    assert isinstance(store, InMemoryStore)
    assert (store.backend, store.vector_search) == ("memory", "exact")


async def test_every_backend_is_a_whole_store(store: Store) -> None:
    assert_implements(store, Store)


async def test_default_url_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUNYARD_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    store = await open_store()
    try:
        assert store.backend == "sqlite"
    finally:
        await store.close()
    assert (tmp_path / "env.db").exists()


@pytest.mark.backends("sqlite", "postgresql")
async def test_migrations_build_every_table_from_an_empty_database(database_url: str) -> None:
    await upgrade(database_url)
    await upgrade(database_url)  # idempotent
    store = await open_store(database_url, vectors="exact")
    assert isinstance(store, SqlStore)
    try:
        async with store.engine.connect() as conn:
            tables = set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
            version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar()
    finally:
        await store.close()
    assert {t.name for t in metadata.sorted_tables} <= tables
    assert version == head_revision()


def test_every_migration_file_is_named_after_its_revision() -> None:
    # at_head reads the newest revision from the file names, without alembic.
    versions = Path(head_revision.__code__.co_filename).parent / "versions"
    for path in versions.glob("v*.py"):
        assert f'revision = "{path.name[1:5]}"' in path.read_text(), path.name
    assert newest_file_revision() == head_revision()


async def test_the_head_check_says_at_head_only_once_every_migration_is_applied(
    tmp_path: Path,
) -> None:
    # On an empty file (the PostgreSQL database is shared by the session, migrated already; the
    # migration test above upgrades it twice, through the head check).
    async with _schema_write(f"sqlite:///{tmp_path / 'runyard.db'}") as conn:
        assert not await conn.run_sync(at_head)  # an empty database
        await conn.run_sync(upgrade_to, "0008")
        assert not await conn.run_sync(at_head)  # one migration behind
        await conn.run_sync(upgrade_to_head)
        assert await conn.run_sync(at_head)
        await conn.run_sync(upgrade_to_head)  # at the head: nothing to do
        version = (await conn.execute(text("SELECT version_num FROM alembic_version"))).all()
    assert version == [(head_revision(),)]


async def test_sqlite_store_runs_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "wal.db"
    store = await open_store(f"sqlite:///{path}")
    await store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


@pytest.mark.backends("sqlite", "sqlite-exact", "postgresql", "pgvector")
async def test_each_database_uses_its_native_vector_search_when_it_can(
    backend_kind: str, store: Store
) -> None:
    expected = {"sqlite": "sqlite-vec", "sqlite-exact": "exact", "pgvector": "pgvector"}
    if backend_kind == "postgresql":
        # Any PostgreSQL: native exactly when the server offers the extension.
        assert isinstance(store, SqlStore)
        async with store.engine.connect() as conn:
            offered = await conn.scalar(
                text("SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'")
            )
        expected["postgresql"] = "pgvector" if offered else "exact"
    assert store.vector_search == expected[backend_kind]


@pytest.mark.backends("postgresql")
async def test_postgresql_without_pgvector_says_so(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = await open_store(database_url)
    try:
        if store.vector_search == "exact":  # said at the first use of vectors, not at opening
            hits = await store.query_embeddings(
                (1.0, 0.0), scope="resource", tenant_id="acme", resource_id="alice"
            )
            assert hits == []
            assert "pgvector is not available" in caplog.text
        else:
            assert store.vector_search == "pgvector"
    finally:
        await store.close()


async def test_migrating_says_what_it_applied_in_one_line_and_alembic_says_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    url = f"sqlite:///{tmp_path / 'old.db'}"
    async with _schema_write(url) as conn:
        await conn.run_sync(upgrade_to, "0008")
    caplog.clear()
    store = await open_store(url)
    await store.close()
    assert not [r for r in caplog.records if r.name.startswith("alembic")]
    said = [r.getMessage() for r in caplog.records if "database schema" in r.getMessage()]
    newest = int(newest_file_revision())
    assert said == [
        f"database schema migrated to revision {newest_file_revision()} "
        f"({', '.join(f'{n:04d}' for n in range(9, newest + 1))})"
    ]
    caplog.clear()
    store = await open_store(url)  # at the head already: nothing to say
    await store.close()
    assert "database schema" not in caplog.text
    assert logging.getLogger("alembic").level == logging.NOTSET  # left as it was


async def test_an_empty_database_is_created_at_the_newest_revision_without_alembic(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="runyard.storage")
    store = await open_store(f"sqlite:///{tmp_path / 'new.db'}")
    await store.close()
    said = [r.getMessage() for r in caplog.records if "database schema" in r.getMessage()]
    assert said == [f"database schema created at revision {newest_file_revision()}"]
    # Whether alembic stays unloaded is tests/test_cold_start.py's: a fresh interpreter's.


@pytest.fixture
def empty_databases(backend_kind: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two empty databases on the backend under test."""
    if backend_kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
        return
    first = private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_schema")
    second = private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_schema")
    yield next(first), next(second)
    for database in (first, second):
        next(database, None)  # drops it


@pytest.mark.backends("sqlite", "postgresql")
async def test_an_empty_database_gets_the_schema_the_migrations_build(
    empty_databases: tuple[str, str],
) -> None:
    migrated_url, created_url = empty_databases
    schemas = []
    for url, build in ((migrated_url, upgrade_to), (created_url, _upgrade_to_head)):
        async with _schema_write(url) as conn:
            await conn.run_sync(build, "head")
            schemas.append(await conn.run_sync(_schema))
    migrated, created = schemas
    assert set(migrated) == {*metadata.tables, "alembic_version"}
    for table in migrated:
        assert created[table] == migrated[table], table


@asynccontextmanager
async def _schema_write(url: str) -> AsyncIterator[AsyncConnection]:
    """A schema-writing transaction on the database at ``url`` (its engine closed after)."""
    target = parse_database_url(url).sqlalchemy_url
    assert target is not None
    engine = create_engine(target)
    try:
        async with schema_write(engine) as conn:
            yield conn
    finally:
        await engine.dispose()


def _upgrade_to_head(connection: Connection, _revision: str) -> None:
    upgrade_to_head(connection)


def _schema(connection: Connection) -> dict[str, dict[str, Any]]:
    """Every table of the database as the database describes it, comparable across databases."""
    found = inspect(connection)
    sqlite = connection.dialect.name == "sqlite"

    def type_of(column: dict[str, Any]) -> str:
        declared = str(column["type"])
        return _sqlite_affinity(declared) if sqlite else declared

    return {
        table: {
            "columns": [
                (c["name"], type_of(c), c["nullable"], str(c.get("default")))
                for c in found.get_columns(table)
            ],
            "primary key": found.get_pk_constraint(table)["constrained_columns"],
            "foreign keys": sorted(
                (
                    tuple(f["constrained_columns"]),
                    f["referred_table"],
                    tuple(f["referred_columns"]),
                    str(sorted(f.get("options", {}).items())),
                )
                for f in found.get_foreign_keys(table)
            ),
            "indexes": sorted(
                (
                    i["name"],
                    tuple(i["column_names"]),
                    bool(i["unique"]),
                    str(sorted((k, str(v)) for k, v in i.get("dialect_options", {}).items())),
                )
                for i in found.get_indexes(table)
            ),
            "unique constraints": sorted(
                tuple(u["column_names"]) for u in found.get_unique_constraints(table)
            ),
            "check constraints": sorted(
                str(c["sqltext"]) for c in found.get_check_constraints(table)
            ),
        }
        for table in found.get_table_names()
    }


def _sqlite_affinity(declared: str) -> str:
    """SQLite's column affinity for a declared type (https://sqlite.org/datatype3.html, 3.1):
    what it stores, whatever length or name was declared."""
    upper = declared.upper()
    if "INT" in upper:
        return "INTEGER"
    if any(word in upper for word in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in upper or not upper:
        return "BLOB"
    if any(word in upper for word in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"
