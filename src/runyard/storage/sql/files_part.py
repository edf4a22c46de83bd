"""Files of ``SqlStore``: metadata in ``files``, thread references in ``file_references``; the
bytes in the store's ``FileBytes`` (the ``file_chunks`` table unless a directory is set)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, func, insert, select, update

from runyard.storage.errors import FileQuotaExceeded, StorageError, ThreadOwnershipError
from runyard.storage.files import StreamedFiles
from runyard.storage.records import FileRecord, NewFile
from runyard.storage.sql.connection import SqlConnection
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.schema import file_references, files
from runyard.storage.sql.state import SqlState
from runyard.storage.sql.upserts import insert_ignore

__all__ = ["FilesPart", "delete_thread_files"]

_QUOTA_LOCK_SPACE = 0x6669
"""The first key of PostgreSQL's two-key advisory locks that queue a tenant's file quota checks
(the second is the tenant's hash); apart from the run quota's space and the migrations' lock."""

_READY = "ready"
_RECORD_COLUMNS = (
    files.c.id,
    files.c.tenant_id,
    files.c.resource_id,
    files.c.filename,
    files.c.media_type,
    files.c.size,
    files.c.sha256,
    files.c.created_at,
)


class FilesPart(SqlState, StreamedFiles):
    """Uploaded files, scoped to their owner; ``StreamedFiles`` writes, reads and deletes."""

    async def get_file(
        self, file_id: str, *, tenant_id: str, resource_id: str
    ) -> FileRecord | None:
        stmt = select(*_RECORD_COLUMNS).where(
            files.c.id == file_id,
            files.c.tenant_id == tenant_id,
            files.c.resource_id == resource_id,
            files.c.state == _READY,
        )
        async with read(self._engine) as conn:
            row = (await conn.execute(stmt)).one_or_none()
        return None if row is None else FileRecord(*row)

    async def reference_file(
        self, file_id: str, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> bool:
        async with write(self._engine) as conn:
            if not await self._visible(conn, file_id, tenant_id, resource_id):
                return False
            owner = await self._owner(conn, thread_id)
            if owner is not None and owner != (tenant_id, resource_id):
                raise ThreadOwnershipError(f"thread {thread_id!r} belongs to another owner")
            row = {"file_id": file_id, "thread_id": thread_id}
            await conn.execute(insert_ignore(self._engine.dialect.name, file_references), row)
        return True

    async def tenant_file_bytes(self, tenant_id: str) -> int:
        async with read(self._engine) as conn:
            return await _tenant_bytes(conn, tenant_id)

    async def _visible(
        self, conn: SqlConnection, file_id: str, tenant_id: str, resource_id: str
    ) -> bool:
        stmt = select(files.c.id).where(
            files.c.id == file_id,
            files.c.tenant_id == tenant_id,
            files.c.resource_id == resource_id,
            files.c.state == _READY,
        )
        return (await conn.execute(stmt)).one_or_none() is not None

    async def _begin_file(self, file: NewFile, created_at: int) -> int:
        row: dict[str, Any] = {
            "id": file.id,
            "tenant_id": file.tenant_id,
            "resource_id": file.resource_id,
            "filename": file.filename,
            "media_type": "",
            "size": 0,
            "sha256": "",
            "state": "writing",
            "created_at": created_at,
        }
        async with write(self._engine) as conn:
            await conn.execute(insert(files), row)
            return await _tenant_bytes(conn, file.tenant_id)

    async def _finish_file(self, record: FileRecord, quota_bytes: int | None) -> None:
        async with write(self._engine) as conn:
            if quota_bytes is not None:
                await self._check_file_quota(conn, record, quota_bytes)
            finished = await conn.execute(
                update(files)
                .where(files.c.id == record.id, files.c.state == "writing")
                .values(
                    media_type=record.media_type,
                    size=record.size,
                    sha256=record.sha256,
                    state=_READY,
                )
            )
            if finished.rowcount != 1:
                raise StorageError(f"file {record.id!r} was swept while it was written")

    async def _check_file_quota(self, conn: SqlConnection, record: FileRecord, quota: int) -> None:
        """Count the tenant's files inside the finishing transaction: SQLite's writers take
        turns; on PostgreSQL a lock per tenant makes racing writers queue."""
        if self._engine.dialect.name == "postgresql":
            lock = func.pg_advisory_xact_lock(_QUOTA_LOCK_SPACE, func.hashtext(record.tenant_id))
            await conn.execute(select(lock))
        used = await _tenant_bytes(conn, record.tenant_id)
        if used + record.size > quota:
            raise FileQuotaExceeded(quota, used)

    async def _delete_file_rows(self, file_ids: Sequence[str]) -> None:
        async with write(self._engine) as conn:
            await conn.execute(
                delete(file_references).where(file_references.c.file_id.in_(file_ids))
            )
            await conn.execute(delete(files).where(files.c.id.in_(file_ids)))

    async def _unfinished_files(self, before: int) -> list[str]:
        stmt = select(files.c.id).where(files.c.state == "writing", files.c.created_at < before)
        async with read(self._engine) as conn:
            return [str(file_id) for file_id in (await conn.execute(stmt)).scalars()]


async def _tenant_bytes(conn: SqlConnection, tenant_id: str) -> int:
    stmt = select(func.coalesce(func.sum(files.c.size), 0)).where(
        files.c.tenant_id == tenant_id, files.c.state == _READY
    )
    return int((await conn.execute(stmt)).scalar_one())


async def delete_thread_files(conn: SqlConnection, thread_id: str) -> list[str]:
    """Inside a thread's deletion: drop its references, and the rows of the files no other
    thread references; their ids, whose bytes the caller deletes once this commits."""
    referenced = select(file_references.c.file_id).where(file_references.c.thread_id == thread_id)
    file_ids = [str(file_id) for file_id in (await conn.execute(referenced)).scalars()]
    if not file_ids:
        return []
    await conn.execute(delete(file_references).where(file_references.c.thread_id == thread_id))
    still = select(file_references.c.file_id).where(file_references.c.file_id.in_(file_ids))
    kept = {str(file_id) for file_id in (await conn.execute(still)).scalars()}
    orphans = [file_id for file_id in file_ids if file_id not in kept]
    if orphans:
        await conn.execute(delete(files).where(files.c.id.in_(orphans)))
    return orphans
