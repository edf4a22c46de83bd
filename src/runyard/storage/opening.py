"""``open_store`` and ``upgrade``: from a URL to a migrated, ready store."""

from __future__ import annotations

import logging
from typing import Literal

from sqlalchemy.ext.asyncio import AsyncEngine

from runyard.config import Settings, get_settings
from runyard.storage.files.configured import configured_file_bytes
from runyard.storage.inmemory import InMemoryStore
from runyard.storage.migrations import upgrade_to_head
from runyard.storage.protocol import Store
from runyard.storage.sql import SqlStore
from runyard.storage.sql.engine import create_engine, dispose, schema_write
from runyard.storage.sql.exact_vectors import ExactVectorIndex
from runyard.storage.sql.pgvector_index import PgVectorIndex
from runyard.storage.sql.sqlite_vec_index import SqliteVecIndex
from runyard.storage.sql.vector_index import NativeVectorsUnavailable, VectorIndex
from runyard.storage.urls import DatabaseURL, parse_database_url

__all__ = ["VectorMode", "open_store", "upgrade"]

logger = logging.getLogger("runyard.storage")

VectorMode = Literal["auto", "exact"]
"""``auto``: sqlite-vec / pgvector when the database can load them; ``exact``: always Python."""


async def open_store(
    url: str | None = None, *, vectors: VectorMode = "auto", settings: Settings | None = None
) -> Store:
    """A ready store for ``url`` (default: the settings' ``RUNYARD_DATABASE_URL``, else
    ``sqlite:///runyard.db``), with every migration applied. Uploaded files' bytes go where
    ``settings`` (default: the environment's) say: ``RUNYARD_FILES_DIR``,
    ``RUNYARD_FILES_S3_BUCKET``, else the database."""
    settings = settings or get_settings()
    target = parse_database_url(url if url is not None else settings.database_url)
    file_bytes = configured_file_bytes(settings)
    if target.backend == "memory":
        return InMemoryStore(file_bytes)
    assert target.sqlalchemy_url is not None
    engine = create_engine(target.sqlalchemy_url)
    try:
        await _migrate(engine)
        index = await _vector_index(engine, target, vectors)
    except BaseException:
        await dispose(engine)
        raise
    return SqlStore(engine, index, file_bytes)


async def upgrade(url: str | None = None) -> None:
    """Apply pending migrations to the database at ``url`` (what ``runyard db upgrade`` runs)."""
    target = parse_database_url(url if url is not None else get_settings().database_url)
    if target.sqlalchemy_url is None:
        return
    engine = create_engine(target.sqlalchemy_url)
    try:
        await _migrate(engine)
    finally:
        await dispose(engine)


async def _migrate(engine: AsyncEngine) -> None:
    async with schema_write(engine) as conn:
        await conn.run_sync(upgrade_to_head)


async def _vector_index(engine: AsyncEngine, target: DatabaseURL, mode: VectorMode) -> VectorIndex:
    try:
        if mode == "auto" and target.backend == "postgresql":
            return await PgVectorIndex.open(engine)
        if mode == "auto" and target.sqlite_path is not None:
            return await SqliteVecIndex.open(target.sqlite_path)
    except NativeVectorsUnavailable as exc:
        logger.debug("%s", exc)
        return ExactVectorIndex(instead_of=str(exc))
    return ExactVectorIndex()
