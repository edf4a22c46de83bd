"""The file store as the run manager sees it: a reader and writer per caller, and references
per thread.

The binary store itself (``/v1/files``) implements this; nothing here knows how files are kept.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable
from typing import Protocol

from runyard.models import FileReader
from runyard.service.owner import Owner

__all__ = ["FileStore", "FilesFor"]


class FileStore(FileReader, Protocol):
    """One caller's view of the stored files: only theirs are found."""

    async def save(self, chunks: AsyncIterable[bytes], filename: str | None) -> str:
        """Store a new file of the caller's from ``chunks``; its id. Raises when the store's
        limits refuse it (nothing is kept then)."""
        ...

    async def reference(self, file_id: str, thread_id: str) -> None:
        """Record that a message of ``thread_id`` names the file (deleting the thread deletes
        a file only it references)."""
        ...


FilesFor = Callable[[Owner], FileStore]
"""The file store as seen by ``owner`` (tenant and user): what their messages may name."""
