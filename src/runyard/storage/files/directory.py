"""``DirectoryFileBytes``: files' bytes as files in a directory (``RUNYARD_FILES_DIR``), their
metadata still in the database.

A file is written to ``<dir>/partial/<id>`` and renamed to ``<dir>/<last two hex>/<id>`` only
once whole, so a reader never sees half a file and a crash leaves only a partial file. File ids
are the store's own (``file_<hex>``), never a path a sender chose. Disk work runs on a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterable, AsyncIterator, Sequence
from pathlib import Path
from typing import BinaryIO

from runyard.storage.files.file_bytes import CHUNK_BYTES, FileBytes

__all__ = ["DirectoryFileBytes"]


class DirectoryFileBytes(FileBytes):
    """Bytes under ``root``; the directory is created when missing."""

    def __init__(self, root: Path) -> None:
        self._root = root
        (root / "partial").mkdir(parents=True, exist_ok=True)

    def _path(self, file_id: str) -> Path:
        if not file_id or "/" in file_id or file_id.startswith("."):
            raise ValueError(f"not a file id: {file_id!r}")
        return self._root / file_id[-2:] / file_id

    async def write_bytes(self, file_id: str, chunks: AsyncIterable[bytes]) -> None:
        final = self._path(file_id)
        partial = self._root / "partial" / file_id
        out = await asyncio.to_thread(partial.open, "wb")
        try:
            async for chunk in chunks:
                await asyncio.to_thread(out.write, chunk)
            await asyncio.to_thread(_close_durably, out)
            await asyncio.to_thread(final.parent.mkdir, exist_ok=True)
            await asyncio.to_thread(os.replace, partial, final)
        except BaseException:
            out.close()
            partial.unlink(missing_ok=True)
            raise

    async def read_bytes(self, file_id: str, start: int, end: int) -> AsyncIterator[bytes]:
        try:
            source = await asyncio.to_thread(self._path(file_id).open, "rb")
        except FileNotFoundError as exc:
            raise LookupError(file_id) from exc
        with source:
            await asyncio.to_thread(source.seek, start)
            position = start
            while position < end:
                piece = await asyncio.to_thread(source.read, min(CHUNK_BYTES, end - position))
                if not piece:
                    raise LookupError(f"{file_id} ends before byte {end}")
                position += len(piece)
                yield piece

    async def delete_bytes(self, file_ids: Sequence[str]) -> None:
        for file_id in file_ids:
            await asyncio.to_thread(self._path(file_id).unlink, missing_ok=True)
            with contextlib.suppress(FileNotFoundError):
                await asyncio.to_thread((self._root / "partial" / file_id).unlink)


def _close_durably(out: BinaryIO) -> None:
    out.flush()
    os.fsync(out.fileno())
    out.close()
