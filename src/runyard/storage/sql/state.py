"""What every part of ``SqlStore`` shares: the engine, dialect-aware upserts, ownership checks."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import Row, Table, and_, bindparam, case, select, update
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.elements import BindParameter

from runyard.ids import now_ms
from runyard.storage.errors import ThreadOwnershipError
from runyard.storage.files.file_bytes import FileBytes
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.direct_statements import prepared
from runyard.storage.sql.file_chunks import DatabaseFileBytes
from runyard.storage.sql.grouped_event_inserts import GroupedEventInserts
from runyard.storage.sql.instance_locks import instance_locks_for
from runyard.storage.sql.schema import threads
from runyard.storage.sql.upserts import insert_ignore, insert_of, upsert
from runyard.storage.sql.vector_index import VectorIndex

__all__ = ["SqlState"]


@cache
def _claim_touched_statement(dialect: str, changed: tuple[str, ...]) -> Insert:
    """``_claim_touched``'s upsert for the columns in ``changed``, built once and shared (a
    statement is immutable): a run's start runs it three times."""
    tenant: BindParameter[str] = bindparam("p_tenant")
    resource: BindParameter[str] = bindparam("p_resource")
    now = bindparam("p_now", type_=threads.c.updated_at.type)
    stmt = insert_of(dialect, threads).values(
        id=bindparam("p_id"),
        tenant_id=tenant,
        resource_id=resource,
        title=bindparam("p_title", type_=threads.c.title.type),
        metadata=bindparam("p_metadata", type_=threads.c.metadata.type),
        created_at=now,
        updated_at=now,
    )
    newer = case((threads.c.updated_at < now, now), else_=threads.c.updated_at)
    return prepared(
        stmt.on_conflict_do_update(
            index_elements=["id"],
            set_={**{c: stmt.excluded[c] for c in changed}, "updated_at": newer},
            where=and_(threads.c.tenant_id == tenant, threads.c.resource_id == resource),
        ).returning(*threads.c)
    )


class SqlState:
    """Shared state of ``SqlStore``'s parts."""

    def __init__(
        self, engine: AsyncEngine, vectors: VectorIndex, file_bytes: FileBytes | None = None
    ) -> None:
        self._engine = engine
        self._vectors = vectors
        self._file_bytes = file_bytes or DatabaseFileBytes(engine)
        self._event_rows = GroupedEventInserts(engine)
        self._instance_locks = instance_locks_for(engine)

    def _upsert(self, table: Table, keys: Sequence[str], columns: Sequence[str]) -> Insert:
        return upsert(self._engine.dialect.name, table, keys, columns)

    async def _owner(self, conn: SqlConnection, thread_id: str) -> tuple[str, str] | None:
        row = (
            await conn.execute(
                select(threads.c.tenant_id, threads.c.resource_id).where(threads.c.id == thread_id)
            )
        ).one_or_none()
        return None if row is None else (row.tenant_id, row.resource_id)

    async def _owned(
        self, conn: SqlConnection, thread_id: str, tenant_id: str, resource_id: str
    ) -> bool:
        return await self._owner(conn, thread_id) == (tenant_id, resource_id)

    async def _claim(
        self, conn: SqlConnection, thread_id: str, tenant_id: str, resource_id: str
    ) -> None:
        """Create the thread for this owner when missing; another owner's raises."""
        now = now_ms()
        row: dict[str, Any] = {
            "id": thread_id,
            "tenant_id": tenant_id,
            "resource_id": resource_id,
            "title": None,
            "metadata": {},
            "created_at": now,
            "updated_at": now,
        }
        await conn.execute(insert_ignore(self._engine.dialect.name, threads), row)
        if await self._owner(conn, thread_id) != (tenant_id, resource_id):
            raise ThreadOwnershipError(f"thread {thread_id!r} belongs to another owner")

    async def _claim_touched(
        self,
        conn: SqlConnection,
        thread_id: str,
        tenant_id: str,
        resource_id: str,
        changes: dict[str, Any] | None = None,
    ) -> Row[Any]:
        """``_claim``, ``changes`` written and ``_touch`` in one statement; the thread's row.

        One upsert instead of four statements: a run's start writes its thread three times."""
        changes = changes or {}
        params = {
            "p_id": thread_id,
            "p_tenant": tenant_id,
            "p_resource": resource_id,
            "p_title": changes.get("title"),
            "p_metadata": changes.get("metadata", {}),
            "p_now": now_ms(),
        }
        stmt = _claim_touched_statement(self._engine.dialect.name, tuple(changes))
        row: Row[Any] | None = (await conn.execute(stmt, params)).one_or_none()
        if row is None:
            raise ThreadOwnershipError(f"thread {thread_id!r} belongs to another owner")
        return row

    async def _touch(self, conn: SqlConnection, thread_id: str) -> None:
        now = now_ms()
        await conn.execute(
            update(threads)
            .where(threads.c.id == thread_id, threads.c.updated_at < now)
            .values(updated_at=now)
        )
