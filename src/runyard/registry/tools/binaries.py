"""Where a tool reads binary payloads (files, images) by id: the ``BinarySource`` seam.

``ExecutionContext.get_binary_stream`` reads through it, in chunks, so a tool never holds a large
file in memory unless it wants to. ``InMemoryBinaries`` is the in-memory twin.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from runyard.errors import ToolError

__all__ = ["BinarySource", "InMemoryBinaries", "UnknownBinaryError"]


class UnknownBinaryError(ToolError):
    """No binary has the id a tool asked for."""

    def __init__(self, binary_id: str) -> None:
        super().__init__(f"no binary with id {binary_id!r}")
        self.binary_id = binary_id


class BinarySource(Protocol):
    """Binary payloads by id, read as a stream of byte chunks."""

    def open(self, binary_id: str) -> AsyncIterator[bytes]:
        """The payload's chunks; ``UnknownBinaryError`` when ``binary_id`` names nothing."""
        ...


class InMemoryBinaries:
    """Binaries held in a dict, streamed in ``chunk_size`` pieces."""

    def __init__(self, chunk_size: int = 64 * 1024) -> None:
        self._data: dict[str, bytes] = {}
        self._chunk_size = chunk_size

    def put(self, binary_id: str, data: bytes) -> None:
        self._data[binary_id] = data

    async def open(self, binary_id: str) -> AsyncIterator[bytes]:
        data = self._data.get(binary_id)
        if data is None:
            raise UnknownBinaryError(binary_id)
        for start in range(0, len(data), self._chunk_size):
            yield data[start : start + self._chunk_size]
