"""``StreamedFiles``: what every backend's ``Files`` part shares — the write path (an unfinished
row first, the bytes through the measuring stream, then the row finished under the quota; any
failure on the way, a limit, the sender's error or a cancellation, deletes both, so nothing is
kept half), reading through the owner's metadata, and deleting. A backend supplies the metadata
steps; its bytes live in a ``FileBytes``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterable, AsyncIterator, Sequence

from runyard.ids import now_ms
from runyard.storage.files.file_bytes import FileBytes
from runyard.storage.files.measuring import MeasuredStream
from runyard.storage.records import FileRecord, NewFile

__all__ = ["StreamedFiles"]


class StreamedFiles(ABC):
    """The shared half of a ``Files`` part."""

    _file_bytes: FileBytes

    async def save_file(
        self,
        file: NewFile,
        chunks: AsyncIterable[bytes],
        /,
        *,
        max_bytes: int | None = None,
        quota_bytes: int | None = None,
    ) -> FileRecord:
        created_at = now_ms()
        used = await self._begin_file(file, created_at)
        stream = MeasuredStream(
            chunks, max_bytes=max_bytes, quota_bytes=quota_bytes, used_bytes=used
        )
        try:
            await self._file_bytes.write_bytes(file.id, stream)
            record = stream.record(file, created_at)
            await self._finish_file(record, quota_bytes)
        except BaseException:
            await self._forget_files([file.id])
            raise
        return record

    async def read_file_bytes(
        self,
        file_id: str,
        *,
        tenant_id: str,
        resource_id: str,
        start: int = 0,
        end: int | None = None,
    ) -> AsyncIterator[bytes] | None:
        record = await self.get_file(file_id, tenant_id=tenant_id, resource_id=resource_id)
        if record is None:
            return None
        stop = record.size if end is None else min(end, record.size)
        return self._file_bytes.read_bytes(file_id, start, stop)

    async def delete_file(self, file_id: str, *, tenant_id: str, resource_id: str) -> bool:
        if await self.get_file(file_id, tenant_id=tenant_id, resource_id=resource_id) is None:
            return False
        await self._forget_files([file_id])
        return True

    async def sweep_unfinished_files(self, before: int) -> int:
        file_ids = await self._unfinished_files(before)
        await self._forget_files(file_ids)
        return len(file_ids)

    async def _forget_files(self, file_ids: Sequence[str]) -> None:
        """Delete these files: rows and references first, so none is read half-deleted."""
        if file_ids:
            await self._delete_file_rows(file_ids)
            await self._file_bytes.delete_bytes(file_ids)

    @abstractmethod
    async def get_file(
        self, file_id: str, *, tenant_id: str, resource_id: str
    ) -> FileRecord | None:
        """``Files.get_file``."""

    @abstractmethod
    async def _begin_file(self, file: NewFile, created_at: int) -> int:
        """Keep ``file`` as unfinished; the bytes its tenant's finished files hold."""

    @abstractmethod
    async def _finish_file(self, record: FileRecord, quota_bytes: int | None) -> None:
        """Make the file visible as ``record``, or raise ``FileQuotaExceeded`` if the tenant's
        finished files (counted in the same transaction) leave no room for it."""

    @abstractmethod
    async def _delete_file_rows(self, file_ids: Sequence[str]) -> None:
        """Delete these files' rows and references (not their bytes)."""

    @abstractmethod
    async def _unfinished_files(self, before: int) -> list[str]:
        """The files whose writing started before ``before`` and never finished."""
