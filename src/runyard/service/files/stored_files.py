"""``StoredFiles``: one caller's (tenant and user) view of the file store — upload, read, delete,
and the references a thread's messages make.

It is what a run reads a message's stored file through (``read_file``: the ``FileReader`` of
``runyard.models``) and what records that a thread uses one (``reference``), so deleting the
thread deletes the files only it used. Nobody else's file is ever found.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable

from runyard.ids import new_id
from runyard.service.owner import Owner
from runyard.storage import FileRecord, Files, NewFile

__all__ = ["StoredFiles", "files_for"]


class StoredFiles:
    """The files of ``resource_id`` (the user) in ``tenant_id``. ``max_bytes`` and
    ``quota_bytes`` (None: none) bound what ``upload`` accepts."""

    def __init__(
        self,
        store: Files,
        tenant_id: str,
        resource_id: str,
        *,
        max_bytes: int | None = None,
        quota_bytes: int | None = None,
    ) -> None:
        self._store = store
        self._owner = Owner(tenant_id, resource_id)
        self._max_bytes = max_bytes
        self._quota_bytes = quota_bytes

    @property
    def _scope(self) -> dict[str, str]:
        return {"tenant_id": self._owner.tenant_id, "resource_id": self._owner.user_id}

    async def upload(self, chunks: AsyncIterable[bytes], *, filename: str | None) -> FileRecord:
        """Store a new file from ``chunks``: ``FileTooLarge`` or ``FileQuotaExceeded`` past the
        limits, with nothing kept."""
        file = NewFile(new_id("file"), self._owner.tenant_id, self._owner.user_id, filename)
        return await self._store.save_file(
            file, chunks, max_bytes=self._max_bytes, quota_bytes=self._quota_bytes
        )

    async def save(self, chunks: AsyncIterable[bytes], filename: str | None) -> str:
        """``upload``, for the run manager (``FileStore``): the new file's id."""
        return (await self.upload(chunks, filename=filename)).id

    async def meta(self, file_id: str) -> FileRecord | None:
        """The file's metadata; None when the caller has no such file."""
        return await self._store.get_file(file_id, **self._scope)

    async def open(
        self, file_id: str, *, start: int = 0, end: int | None = None
    ) -> AsyncIterator[bytes] | None:
        """Bytes ``start`` to ``end`` (exclusive) in chunks; None when the caller has no such
        file."""
        return await self._store.read_file_bytes(file_id, start=start, end=end, **self._scope)

    async def delete(self, file_id: str) -> bool:
        """Delete the file; False when the caller has no such file."""
        return await self._store.delete_file(file_id, **self._scope)

    async def read_file(self, file_id: str) -> tuple[str, bytes]:
        """The file's media type and all of its bytes (for a model call, which takes them
        whole); ``LookupError`` when the caller has no such file."""
        record = await self.meta(file_id)
        pieces = None if record is None else await self.open(file_id)
        if record is None or pieces is None:
            raise LookupError(f"no file {file_id!r}")
        return record.media_type, b"".join([piece async for piece in pieces])

    async def reference(self, file_id: str, thread_id: str) -> None:
        """Record that the caller's thread ``thread_id`` (the id the client chose) uses the
        file; ``LookupError`` when the caller has no such file."""
        key = self._owner.thread_key(thread_id)
        if not await self._store.reference_file(file_id, key, **self._scope):
            raise LookupError(f"no file {file_id!r}")


def files_for(
    store: Files, *, max_bytes: int | None = None, quota_bytes: int | None = None
) -> Callable[[Owner], StoredFiles]:
    """Each caller's ``StoredFiles`` on ``store``: what the run manager reads messages' files
    through (``create_app``'s ``files=``)."""

    def of(owner: Owner) -> StoredFiles:
        return StoredFiles(
            store,
            owner.tenant_id,
            owner.user_id,
            max_bytes=max_bytes,
            quota_bytes=quota_bytes,
        )

    return of
