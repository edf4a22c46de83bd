"""``FileBytes``: where a file's bytes live, apart from its metadata — the seam between the
``Files`` part and the database's chunk table, a directory, or (in tests) a dictionary.

Every backend gets the bytes as ``CHUNK_BYTES`` pieces (the last one shorter) from the
measuring stream, and hands them back as pieces too: nothing holds a whole file.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Sequence
from typing import Protocol

__all__ = ["CHUNK_BYTES", "FileBytes", "MemoryFileBytes", "slice_pieces"]

CHUNK_BYTES = 256 * 1024
"""The size of the pieces a file is written in (one database row each)."""


class FileBytes(Protocol):
    """Bytes by file id. ``write_bytes`` keeps nothing when it raises; the caller (the ``Files``
    part) deletes what a failed write may have left, and never reads an unfinished file."""

    async def write_bytes(self, file_id: str, chunks: AsyncIterable[bytes]) -> None:
        """Store every chunk, in order, under ``file_id``."""
        ...

    def read_bytes(self, file_id: str, start: int, end: int) -> AsyncIterator[bytes]:
        """Bytes ``start`` to ``end`` (exclusive) in pieces; ``LookupError`` when they are gone."""
        ...

    async def delete_bytes(self, file_ids: Sequence[str]) -> None:
        """Forget these files' bytes (no error for unknown ids)."""
        ...


async def slice_pieces(
    pieces: AsyncIterable[tuple[int, bytes]], start: int, end: int
) -> AsyncIterator[bytes]:
    """The part of ``(offset, data)`` pieces (in offset order) that falls in ``start:end``."""
    async for offset, data in pieces:
        if offset >= end:
            return
        piece = data[max(start - offset, 0) : end - offset]
        if piece:
            yield piece


class MemoryFileBytes(FileBytes):
    """Bytes in a dictionary: the in-memory store's default."""

    def __init__(self) -> None:
        self._files: dict[str, list[bytes]] = {}

    async def write_bytes(self, file_id: str, chunks: AsyncIterable[bytes]) -> None:
        self._files[file_id] = [chunk async for chunk in chunks]

    async def read_bytes(self, file_id: str, start: int, end: int) -> AsyncIterator[bytes]:
        async for piece in slice_pieces(self._pieces(file_id), start, end):
            yield piece

    async def _pieces(self, file_id: str) -> AsyncIterator[tuple[int, bytes]]:
        offset = 0
        for chunk in self._files.get(file_id, []):
            yield offset, chunk
            offset += len(chunk)
        if file_id not in self._files:
            raise LookupError(file_id)

    async def delete_bytes(self, file_ids: Sequence[str]) -> None:
        for file_id in file_ids:
            self._files.pop(file_id, None)
