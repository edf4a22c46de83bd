"""``MeasuredStream``: a file's chunks on their way to a ``FileBytes``, re-cut into
``CHUNK_BYTES`` pieces while their size, SHA-256 and media type are taken, and stopped the moment
they pass the size limit or the tenant's quota."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterable, AsyncIterator

from runyard.storage.errors import FileQuotaExceeded, FileTooLarge
from runyard.storage.files.file_bytes import CHUNK_BYTES
from runyard.storage.files.sniffing import MediaSniffer
from runyard.storage.records import FileRecord, NewFile

__all__ = ["MeasuredStream"]


class MeasuredStream:
    """Iterate it once; then ``record`` describes what went through."""

    def __init__(
        self,
        chunks: AsyncIterable[bytes],
        *,
        max_bytes: int | None,
        quota_bytes: int | None,
        used_bytes: int,
    ) -> None:
        self._chunks = chunks
        self._max_bytes = max_bytes
        self._quota_bytes = quota_bytes
        self._used_bytes = used_bytes
        self._size = 0
        self._sha256 = hashlib.sha256()
        self._sniffer = MediaSniffer()

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._pieces()

    async def _pieces(self) -> AsyncIterator[bytes]:
        buffer = bytearray()
        async for chunk in self._chunks:
            self._take(chunk)
            buffer += chunk
            while len(buffer) >= CHUNK_BYTES:
                yield bytes(buffer[:CHUNK_BYTES])
                del buffer[:CHUNK_BYTES]
        if buffer:
            yield bytes(buffer)

    def _take(self, chunk: bytes) -> None:
        self._size += len(chunk)
        if self._max_bytes is not None and self._size > self._max_bytes:
            raise FileTooLarge(self._max_bytes)
        quota = self._quota_bytes
        if quota is not None and self._used_bytes + self._size > quota:
            raise FileQuotaExceeded(quota, self._used_bytes)
        self._sha256.update(chunk)
        self._sniffer.feed(chunk)

    def record(self, file: NewFile, created_at: int) -> FileRecord:
        """The stored file's metadata, once every chunk went through."""
        return FileRecord(
            id=file.id,
            tenant_id=file.tenant_id,
            resource_id=file.resource_id,
            filename=file.filename,
            media_type=self._sniffer.media_type(),
            size=self._size,
            sha256=self._sha256.hexdigest(),
            created_at=created_at,
        )
