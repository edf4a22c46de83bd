"""Alembic migrations, shipped in the package and applied programmatically (no alembic.ini).

``upgrade_to_head(connection)`` brings a database to the newest revision and is a no-op
when it is already there (asked with one query, without loading alembic: a restart on a migrated
database pays nothing for it). An empty database (none of runyard's tables) gets the newest
schema straight from the tables (``runyard.storage.sql.schema``), stamped with the newest
revision, again without alembic: a first start does not replay every migration in turn, and
tests/storage/test_store_opening.py holds that schema equal to what the migrations build.
``upgrade_to(connection, revision)`` stops at an older one (tests of a migration start from the
revision before it). On PostgreSQL an advisory lock serialises replicas that start at the same
time.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import (
    Column,
    Connection,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    inspect,
    text,
)

from runyard.storage.sql.schema import create_all, metadata

if TYPE_CHECKING:
    from alembic.script import ScriptDirectory

__all__ = [
    "at_head",
    "head_revision",
    "lock_schema",
    "newest_file_revision",
    "upgrade_to",
    "upgrade_to_head",
]

logger = logging.getLogger("runyard.storage")

_HERE = Path(__file__).parent
# Any constant works; it only has to be the same in every runyard process.
_PG_LOCK_ID = 0x72756E79617264
# Every migration's file is named after its revision: ``v0009_run_queue.py`` is revision 0009
# (tests/storage/test_store_opening.py holds every file to it).
_MIGRATION_FILE = re.compile(r"v(\d{4})_\w+\.py")


def _script() -> ScriptDirectory:
    # alembic is imported where a schema is read or upgraded, not at import: it costs about a
    # second, and most processes that import the storage layer never open a database.
    from alembic.script import ScriptDirectory

    return ScriptDirectory(str(_HERE), version_locations=[str(_HERE / "versions")])


def head_revision() -> str:
    """The newest migration's revision id."""
    head = _script().get_current_head()
    assert head is not None
    return head


def newest_file_revision() -> str:
    """The newest migration's revision id, read from the migration files' names (no alembic)."""
    names = (path.name for path in (_HERE / "versions").iterdir())
    return max(match[1] for name in names if (match := _MIGRATION_FILE.fullmatch(name)))


def at_head(connection: Connection) -> bool:
    """Whether the database is at the newest migration already: one query, no alembic (whose
    import and reading of its scripts cost ``runyard serve`` ~0.1 s of CPU before it is ready)."""
    if not inspect(connection).has_table("alembic_version"):
        return False
    current = connection.execute(text("SELECT version_num FROM alembic_version")).scalars()
    return list(current) == [newest_file_revision()]


def lock_schema(connection: Connection) -> None:
    """On PostgreSQL, hold the schema lock until the transaction ends (replicas take turns)."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_LOCK_ID})


def upgrade_to_head(connection: Connection) -> None:
    """Bring the database to the newest revision, inside the caller's transaction: nothing to do
    at the head, the tables created in an empty database, else every migration not yet applied."""
    # Migrations only ever go forward: at the head, no other replica can have work left to do.
    if at_head(connection):
        return
    lock_schema(connection)  # a replica starting beside this one may be creating it right now
    if _empty(connection):
        _create_at_head(connection)
    else:
        upgrade_to(connection, "head")


def upgrade_to(connection: Connection, revision: str) -> None:
    """Apply the migrations up to ``revision``, inside the caller's transaction."""
    lock_schema(connection)
    with _alembic_quiet():
        applied = _apply(connection, revision)
    if applied:
        logger.info("database schema migrated to revision %s (%s)", applied[-1], ", ".join(applied))


def _empty(connection: Connection) -> bool:
    """Whether the database holds none of runyard's tables (others' tables may share it)."""
    ours = {*metadata.tables, _VERSION_TABLE.name}
    return not ours.intersection(inspect(connection).get_table_names())


# Alembic's own version table, as alembic creates it, so that its next upgrade reads this one.
_VERSION_TABLE = Table(
    "alembic_version",
    MetaData(),
    Column("version_num", String(32), nullable=False),
    PrimaryKeyConstraint("version_num", name="alembic_version_pkc"),
)


def _create_at_head(connection: Connection) -> None:
    """Create the newest schema in an empty database and record it as the newest revision."""
    create_all(connection)
    _VERSION_TABLE.create(connection)
    head = newest_file_revision()
    connection.execute(_VERSION_TABLE.insert().values(version_num=head))
    logger.info("database schema created at revision %s", head)


def _apply(connection: Connection, revision: str) -> list[str]:
    """The revisions applied, in order."""
    from alembic.config import Config
    from alembic.runtime.environment import EnvironmentContext

    script = _script()
    config = Config()
    config.set_main_option("script_location", str(_HERE))
    applied: list[str] = []

    def steps(current: object, _context: object) -> object:
        planned = script._upgrade_revs(revision, current)  # type: ignore[arg-type]
        applied.extend(step.revision.revision for step in planned)
        return planned

    with EnvironmentContext(config, script, fn=steps) as env:
        env.configure(connection=connection, transactional_ddl=True)
        env.run_migrations()
    return applied


@contextmanager
def _alembic_quiet() -> Iterator[None]:
    """Alembic's own INFO lines (a "setup plugin" line per plugin, the context, each step) say
    nothing a person starting a server needs; ``upgrade_to`` says once what it applied."""
    alembic = logging.getLogger("alembic")
    kept = alembic.level
    alembic.setLevel(max(kept, logging.WARNING))
    try:
        yield
    finally:
        alembic.setLevel(kept)
