"""Alembic migrations, shipped in the package and applied programmatically (no alembic.ini).

``upgrade_to_head(connection)`` brings a database to the newest revision and is a no-op
when it is already there; ``upgrade_to(connection, revision)`` stops at an older one (tests of
a migration start from the revision before it). On PostgreSQL an advisory lock serialises replicas that start at
the same time.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, text

if TYPE_CHECKING:
    from alembic.script import ScriptDirectory

__all__ = ["head_revision", "lock_schema", "upgrade_to", "upgrade_to_head"]

_HERE = Path(__file__).parent
# Any constant works; it only has to be the same in every runyard process.
_PG_LOCK_ID = 0x72756E79617264


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


def lock_schema(connection: Connection) -> None:
    """On PostgreSQL, hold the schema lock until the transaction ends (replicas take turns)."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_LOCK_ID})


def upgrade_to_head(connection: Connection) -> None:
    """Apply every migration not yet applied, inside the caller's transaction."""
    upgrade_to(connection, "head")


def upgrade_to(connection: Connection, revision: str) -> None:
    """Apply the migrations up to ``revision``, inside the caller's transaction."""
    from alembic.config import Config
    from alembic.runtime.environment import EnvironmentContext

    lock_schema(connection)
    script = _script()
    config = Config()
    config.set_main_option("script_location", str(_HERE))

    def steps(current: object, _context: object) -> object:
        return script._upgrade_revs(revision, current)  # type: ignore[arg-type]

    with EnvironmentContext(config, script, fn=steps) as env:
        env.configure(connection=connection, transactional_ddl=True)
        env.run_migrations()
