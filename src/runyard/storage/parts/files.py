"""``Files``: uploaded files — metadata rows plus their bytes, streamed in and out in chunks.

A file belongs to one tenant and user (``resource_id``), like a thread: every read, delete or
reference by someone else finds nothing. Bytes travel as async iterators and are never held whole
in memory. A write that fails or is cancelled midway leaves nothing visible; a process that dies
midway leaves an unfinished row that ``sweep_unfinished_files`` removes. A file referenced by
threads (``reference_file``) is deleted with the last of them (``Conversations.delete_thread``).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Protocol, runtime_checkable

from runyard.storage.records import FileRecord, NewFile

__all__ = ["Files"]


@runtime_checkable
class Files(Protocol):
    """Files by id, scoped to their owner; their bytes in a ``FileBytes`` backend."""

    async def save_file(
        self,
        file: NewFile,
        chunks: AsyncIterable[bytes],
        /,
        *,
        max_bytes: int | None = None,
        quota_bytes: int | None = None,
    ) -> FileRecord:
        """Store ``chunks`` as ``file``: size, SHA-256 and media type (sniffed from the bytes)
        computed on the way. ``FileTooLarge`` past ``max_bytes``; ``FileQuotaExceeded`` when the
        tenant's finished files would hold more than ``quota_bytes``. Either, or any error of
        ``chunks``, leaves nothing stored."""
        ...

    async def get_file(
        self, file_id: str, *, tenant_id: str, resource_id: str
    ) -> FileRecord | None:
        """The finished file's metadata, or None (unknown, unfinished, or someone else's)."""
        ...

    async def read_file_bytes(
        self,
        file_id: str,
        *,
        tenant_id: str,
        resource_id: str,
        start: int = 0,
        end: int | None = None,
    ) -> AsyncIterator[bytes] | None:
        """The bytes ``start`` to ``end`` (exclusive; None = to the end) in chunks, or None
        when ``get_file`` would be. A file deleted while it is read ends the iterator with
        ``LookupError``."""
        ...

    async def delete_file(self, file_id: str, *, tenant_id: str, resource_id: str) -> bool:
        """Delete the file, its bytes and its references; False when ``get_file`` finds none."""
        ...

    async def reference_file(
        self, file_id: str, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> bool:
        """Record that ``thread_id`` uses the file (idempotent); False when the caller cannot see
        the file. The thread need not exist yet; another owner's raises
        ``ThreadOwnershipError``."""
        ...

    async def tenant_file_bytes(self, tenant_id: str) -> int:
        """The bytes the tenant's finished files hold (what its quota counts)."""
        ...

    async def sweep_unfinished_files(self, before: int) -> int:
        """Delete files whose writing started before ``before`` (epoch ms) and never finished
        (their writer died); returns how many."""
        ...
