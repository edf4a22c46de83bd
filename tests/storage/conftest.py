"""Fixtures for the storage contract suites: one ``store`` per backend, fresh for every test.

Each suite checks one part of the ``Store`` (``runyard.storage.parts``). A suite, or one test,
marked ``part_fakes("event-log-only", ...)`` also runs on those one-part fakes (``part_fakes``).

PostgreSQL tests read ``RUNYARD_TEST_POSTGRES_URL`` (any PostgreSQL) and
``RUNYARD_TEST_PGVECTOR_URL`` (a server with the pgvector extension). Each session works in
a database of its own, created on that server and dropped afterwards, so parallel sessions
never see each other's rows. With ``RUNYARD_TEST_REQUIRE_SERVICES=1`` (CI) a missing server
fails the run instead of skipping.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from part_fakes import PART_FAKES

from postgres_databases import private_database, truncate_all
from runyard.storage import open_store
from s3_server import s3_endpoint
from sqlite_databases import MigratedSqlite

BACKENDS = ["memory", "sqlite", "sqlite-exact", "postgresql", "pgvector"]

__all__ = ["s3_endpoint"]


@pytest.fixture(scope="session")
def postgresql_url() -> Iterator[str]:
    """A private database on the plain PostgreSQL server."""
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_storage")


@pytest.fixture(scope="session")
def pgvector_url() -> Iterator[str]:
    """A private database on the PostgreSQL server that has pgvector."""
    yield from private_database("RUNYARD_TEST_PGVECTOR_URL", "runyard_storage")


@pytest.fixture
def backend_kind(request: pytest.FixtureRequest) -> str:
    """Which backend this test runs on (``sqlite-exact`` = SQLite with sqlite-vec switched off)."""
    kind: str = request.param
    return kind


@pytest.fixture
def database_url(backend_kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of the backend under test (``memory://`` for the in-memory store)."""
    if backend_kind == "memory":
        return "memory://"
    if backend_kind.startswith("sqlite"):
        return f"sqlite:///{tmp_path / 'runyard.db'}"
    url: str = request.getfixturevalue(f"{backend_kind}_url")
    return url


@pytest.fixture
def store_url(backend_kind: str, request: pytest.FixtureRequest) -> str | None:
    """``database_url`` for a real backend, None for a one-part fake (which has no database)."""
    if backend_kind in PART_FAKES:
        return None
    url: str = request.getfixturevalue("database_url")
    return url


@pytest.fixture
async def store(
    backend_kind: str, store_url: str | None, migrated_sqlite: MigratedSqlite
) -> AsyncIterator[object]:
    """A ready, empty store of the backend under test: a whole ``Store``, or a one-part fake.
    (``database_url`` alone names an empty SQLite file, for the tests of migrating.)"""
    if store_url is None:
        yield PART_FAKES[backend_kind]()
        return
    if store_url.startswith("sqlite:///"):
        migrated_sqlite.file(Path(store_url.removeprefix("sqlite:///")))
    opened = await open_store(
        store_url, vectors="exact" if backend_kind == "sqlite-exact" else "auto"
    )
    try:
        yield opened
    finally:
        await opened.close()
        if store_url.startswith("postgresql"):
            await truncate_all(store_url)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that needs a backend (``store``, ``database_url``) runs on each one it allows."""
    if "backend_kind" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("backends")
    fakes = metafunc.definition.get_closest_marker("part_fakes")
    kinds = [*(marker.args if marker else BACKENDS), *(fakes.args if fakes else ())]
    metafunc.parametrize("backend_kind", kinds, indirect=True, ids=kinds)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "backends(*kinds): run only on these storage backends")
    config.addinivalue_line("markers", "part_fakes(*kinds): run on these one-part fakes too")
