"""``ProducedFiles``: where a run keeps the large images and files its model and tools produce.

A produced block whose decoded size is over the inline limit (``RUNYARD_MAX_INLINE_CONTENT_BYTES``)
is saved to the run owner's file store, referenced by the run's thread (deleting the thread
deletes it when nothing else names it), and travels from then on by reference:
``{type, mime_type, file_id, filename?, url: "/v1/files/{id}"}`` — in its ``content`` event, in
history and on gRPC. The loop asks before the message joins the run's list, so no client sees a
block that is not durable. Smaller blocks stay inline.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from dataclasses import dataclass

from runyard.messages import MediaPart, media_size
from runyard.service.content.files import FileStore

__all__ = ["ProducedFiles", "file_url"]


def file_url(file_id: str) -> str:
    """Where a client downloads a stored file (``GET /v1/files/{fileId}``, with its own key or a
    file ticket: docs/files.md)."""
    return f"/v1/files/{file_id}"


@dataclass(frozen=True, slots=True)
class ProducedFiles:
    """Keeps a run's large produced blocks in ``files`` (its owner's), referenced by the
    owner's thread ``thread_id`` (the id the client chose); the ``FileKeeper`` of the run."""

    files: FileStore
    thread_id: str
    max_inline_bytes: int

    async def keep(self, part: MediaPart) -> MediaPart:
        """``part`` by reference once stored, when over the limit; else unchanged."""
        size = media_size(part)
        if part.base64 is None or size is None or size <= self.max_inline_bytes:
            return part
        file_id = await self.files.save(_one_piece(base64.b64decode(part.base64)), part.filename)
        await self.files.reference(file_id, self.thread_id)
        return type(part)(
            mime_type=part.mime_type,
            file_id=file_id,
            filename=part.filename,
            url=file_url(file_id),
            extras=part.extras,
        )


async def _one_piece(data: bytes) -> AsyncIterator[bytes]:
    yield data
