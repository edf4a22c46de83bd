"""``runyard db upgrade``: migrations applied to the database it is given, revision printed."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from postgres_databases import private_database
from runyard.cli import app
from runyard.storage.migrations import head_revision


def _revision(path: Path) -> str:
    with sqlite3.connect(path) as connection:
        return str(connection.execute("SELECT version_num FROM alembic_version").fetchone()[0])


def test_upgrade_migrates_a_new_sqlite_file_and_prints_its_revision(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    result = CliRunner().invoke(app, ["db", "upgrade", "--url", f"sqlite:///{path}"])
    assert result.exit_code == 0, result.output
    assert _revision(path) == head_revision()
    assert f"SQLite file {path}: at revision {head_revision()} (head)" in result.output


def test_upgrade_twice_is_harmless(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'again.db'}"
    assert CliRunner().invoke(app, ["db", "upgrade", "--url", url]).exit_code == 0
    assert CliRunner().invoke(app, ["db", "upgrade", "--url", url]).exit_code == 0
    assert _revision(tmp_path / "again.db") == head_revision()


def test_without_url_the_database_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RUNYARD_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    result = CliRunner().invoke(app, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    assert _revision(tmp_path / "env.db") == head_revision()


def test_a_bad_url_is_an_error_that_names_it() -> None:
    result = CliRunner().invoke(app, ["db", "upgrade", "--url", "mysql://nope"])
    assert result.exit_code == 1
    assert "unsupported database URL 'mysql://nope'" in result.output


@pytest.fixture
def postgresql_url() -> Iterator[str]:
    """A fresh database on ``RUNYARD_TEST_POSTGRES_URL``'s server, dropped afterwards."""
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_cli")


def test_upgrade_migrates_postgresql_and_hides_the_password(postgresql_url: str) -> None:
    scheme, _, rest = postgresql_url.partition("://")
    credentials, _, location = rest.rpartition("@")
    user, _, password = credentials.partition(":")
    # A server with trust authentication ignores a password: give it one to hide.
    password = password or "not-shown"
    url = f"{scheme}://{user or 'postgres'}:{password}@{location}"
    result = CliRunner().invoke(app, ["db", "upgrade", "--url", url])
    assert result.exit_code == 0, result.output
    shown = f"{scheme}://{user or 'postgres'}:***@{location}"
    assert f"PostgreSQL {shown}: at revision {head_revision()}" in result.output
    assert password not in result.output
