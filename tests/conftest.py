"""Suite-wide guards: no test may reach a real model provider. Suite-wide fixtures: ``install``
(a tool-factory plugin installed for one test), ``migrated_sqlite`` (SQLite files with every
migration applied). Suite-wide scheduling: one xdist worker runs a whole test file, slow files
first (``parallel_groups``)."""

from __future__ import annotations

import os

import pydantic_ai.models
import pytest
from xdist.remote import Producer

from parallel_groups import FileScheduling, slow_units_first
from sqlite_databases import MigratedSqlite
from tool_plugins import install

__all__ = ["install"]

# pydantic-ai refuses to send requests to real providers while this is False; FunctionModel,
# TestModel and runyard's demo model are unaffected.
pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

# Every `runyard serve` a test starts inherits this: gRPC off unless the test asks for a port,
# or servers running side by side (replicas, parallel helpers) would all want 8401.
os.environ.setdefault("RUNYARD_GRPC_PORT", "0")


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> MigratedSqlite:
    """Copies of one SQLite file migrated for this session: ``migrated_sqlite.file(path)``."""
    return MigratedSqlite.made_in(tmp_path_factory.mktemp("migrated"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker
        slow_units_first(items)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> FileScheduling:
    return FileScheduling(config, log)
