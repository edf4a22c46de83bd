"""Files of the in-memory store: metadata in dictionaries, bytes in its ``FileBytes`` (a
dictionary too, unless a directory is set)."""

from __future__ import annotations

from collections.abc import Sequence

from runyard.storage.errors import FileQuotaExceeded, StorageError, ThreadOwnershipError
from runyard.storage.files import StreamedFiles
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import Files
from runyard.storage.records import FileRecord, NewFile

__all__ = ["FilesPart"]


class FilesPart(MemoryState, StreamedFiles, Files):
    """Uploaded files, scoped to their owner; ``StreamedFiles`` writes, reads and deletes."""

    async def get_file(
        self, file_id: str, *, tenant_id: str, resource_id: str
    ) -> FileRecord | None:
        record, finished = self._files.get(file_id, (None, False))
        if record is None or not finished:
            return None
        return (
            record if (record.tenant_id, record.resource_id) == (tenant_id, resource_id) else None
        )

    async def reference_file(
        self, file_id: str, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> bool:
        if await self.get_file(file_id, tenant_id=tenant_id, resource_id=resource_id) is None:
            return False
        thread = self._threads.get(thread_id)
        if thread is not None and (thread.tenant_id, thread.resource_id) != (
            tenant_id,
            resource_id,
        ):
            raise ThreadOwnershipError(f"thread {thread_id!r} belongs to another owner")
        self._file_references.setdefault(file_id, set()).add(thread_id)
        return True

    async def tenant_file_bytes(self, tenant_id: str) -> int:
        return sum(
            record.size
            for record, finished in self._files.values()
            if finished and record.tenant_id == tenant_id
        )

    async def _begin_file(self, file: NewFile, created_at: int) -> int:
        unfinished = FileRecord(
            file.id, file.tenant_id, file.resource_id, file.filename, "", 0, "", created_at
        )
        self._files[file.id] = (unfinished, False)
        return await self.tenant_file_bytes(file.tenant_id)

    async def _finish_file(self, record: FileRecord, quota_bytes: int | None) -> None:
        if record.id not in self._files:
            raise StorageError(f"file {record.id!r} was swept while it was written")
        used = await self.tenant_file_bytes(record.tenant_id)
        if quota_bytes is not None and used + record.size > quota_bytes:
            raise FileQuotaExceeded(quota_bytes, used)
        self._files[record.id] = (record, True)

    async def _delete_file_rows(self, file_ids: Sequence[str]) -> None:
        for file_id in file_ids:
            self._files.pop(file_id, None)
            self._file_references.pop(file_id, None)

    async def _unfinished_files(self, before: int) -> list[str]:
        return [
            file_id
            for file_id, (record, finished) in self._files.items()
            if not finished and record.created_at < before
        ]
