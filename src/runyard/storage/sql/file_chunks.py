"""``DatabaseFileBytes``: files' bytes in the ``file_chunks`` table, one row per 256 KiB piece.

Each piece is its own short write transaction, so an upload that arrives slowly never holds
SQLite's write lock between pieces; a reader fetches one piece per statement, by its start offset
(the table's key), so neither side ever holds a whole file.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Sequence

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.elements import ColumnElement

from runyard.storage.files.file_bytes import FileBytes, slice_pieces
from runyard.storage.sql.engine import read, write
from runyard.storage.sql.schema import file_chunks

__all__ = ["DatabaseFileBytes"]

_INSERT = insert(file_chunks)


class DatabaseFileBytes(FileBytes):
    """The default home of a file's bytes: the store's own database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def write_bytes(self, file_id: str, chunks: AsyncIterable[bytes]) -> None:
        start = 0
        async for chunk in chunks:
            async with write(self._engine) as conn:
                await conn.execute(_INSERT, {"file_id": file_id, "start": start, "data": chunk})
            start += len(chunk)

    async def read_bytes(self, file_id: str, start: int, end: int) -> AsyncIterator[bytes]:
        async for piece in slice_pieces(self._pieces(file_id, start, end), start, end):
            yield piece

    async def _pieces(self, file_id: str, start: int, end: int) -> AsyncIterator[tuple[int, bytes]]:
        """The pieces from the one holding byte ``start`` on, fetched one at a time."""
        if start >= end:
            return
        piece = await self._piece(file_id, file_chunks.c.start <= start)
        while piece is not None:
            yield piece
            following = piece[0] + len(piece[1])
            if following >= end:
                return
            piece = await self._piece(file_id, file_chunks.c.start == following)
        raise LookupError(f"the bytes of {file_id} are gone")

    async def _piece(self, file_id: str, where: ColumnElement[bool]) -> tuple[int, bytes] | None:
        """The last piece of ``file_id`` that ``where`` allows."""
        stmt = (
            select(file_chunks.c.start, file_chunks.c.data)
            .where(file_chunks.c.file_id == file_id, where)
            .order_by(file_chunks.c.start.desc())
            .limit(1)
        )
        async with read(self._engine) as conn:
            row = (await conn.execute(stmt)).one_or_none()
        return None if row is None else (int(row[0]), bytes(row[1]))

    async def delete_bytes(self, file_ids: Sequence[str]) -> None:
        async with write(self._engine) as conn:
            await conn.execute(delete(file_chunks).where(file_chunks.c.file_id.in_(file_ids)))
