"""SQLite files for tests, with every migration already applied.

Opening an empty file creates every table and index in one transaction, and hundreds of tests
open one. A byte copy of a file made once per session (per xdist worker) is the same database
and opens faster. The tests of migrating itself (``runyard db
upgrade``, opening an empty or an old file: tests/storage/test_store_opening.py,
tests/cli/test_db_command.py, the migration tests) keep starting from empty files.
"""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass
from pathlib import Path

from runyard.storage import upgrade

__all__ = ["MigratedSqlite"]


@dataclass(frozen=True)
class MigratedSqlite:
    """Hands out copies of ``template``, a file with every migration applied."""

    template: Path

    @classmethod
    def made_in(cls, folder: Path) -> MigratedSqlite:
        """Migrate a new template in ``folder`` (outside any running event loop)."""
        template = folder / "migrated.db"
        asyncio.run(upgrade(f"sqlite:///{template}"))
        return cls(template)

    def file(self, path: Path) -> str:
        """Make ``path`` a migrated database; its ``sqlite:///`` URL."""
        shutil.copyfile(self.template, path)
        return f"sqlite:///{path}"
