"""Stored files named by id (``file_id``) are read just before a model call: the ``FileReader`` seam.

History keeps the reference, never the bytes; each model call reads them again through the run's
reader, so a deleted file fails the next call instead of living on in the thread.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any, Protocol

from runyard.messages import (
    AgentMessage,
    AudioPart,
    FilePart,
    ImagePart,
    MediaPart,
    MessagePart,
    ToolBlock,
    ToolResultPart,
    VideoPart,
    tool_block,
    tool_blocks,
)

__all__ = ["FileReader", "MissingFileReaderError", "has_file_references", "read_file_references"]


class FileReader(Protocol):
    """Reads stored files for one caller (tenant and user)."""

    async def read_file(self, file_id: str) -> tuple[str, bytes]:
        """The file's media type and bytes; ``LookupError`` when it is unknown to the caller."""
        ...


class MissingFileReaderError(LookupError):
    """A message names a stored file, and the run has no file store to read it from."""


def has_file_references(messages: Sequence[AgentMessage]) -> bool:
    """True when a part of ``messages`` names a stored file whose bytes are not inline."""
    return any(_unread(part) for message in messages for part in message.parts)


async def read_file_references(
    messages: Sequence[AgentMessage], reader: FileReader | None
) -> list[AgentMessage]:
    """``messages`` with each stored file's bytes put inline (a copy; the messages are unchanged).

    Raises ``MissingFileReaderError`` without a reader, and the reader's ``LookupError`` for a
    file it does not know.
    """
    resolved: list[AgentMessage] = []
    for message in messages:
        if not any(_unread(part) for part in message.parts):
            resolved.append(message)
            continue
        parts = [await _read(part, reader) for part in message.parts]
        resolved.append(message.model_copy(update={"parts": parts}))
    return resolved


def _unread(part: MessagePart | ToolBlock) -> bool:
    """A stored file not read yet: the part itself, or one a tool's result holds."""
    if isinstance(part, ToolResultPart):
        return any(_unread(block) for block in tool_blocks(part.result))
    return (
        isinstance(part, ImagePart | AudioPart | VideoPart | FilePart)
        and part.file_id is not None
        and part.base64 is None
    )


async def _read(part: MessagePart, reader: FileReader | None) -> MessagePart:
    if not _unread(part):
        return part
    if isinstance(part, ToolResultPart):
        return part.model_copy(update={"result": await _read_result(part.result, reader)})
    assert isinstance(part, ImagePart | AudioPart | VideoPart | FilePart)
    return await _read_media(part, reader)


async def _read_result(result: Any, reader: FileReader | None) -> Any:
    if not isinstance(result, list):
        return (await _read_result([result], reader))[0]
    read = []
    for item in result:
        block = tool_block(item)
        if isinstance(block, ImagePart | AudioPart | VideoPart | FilePart) and _unread(block):
            item = await _read_media(block, reader)
        read.append(item)
    return read


async def _read_media(part: MediaPart, reader: FileReader | None) -> MediaPart:
    if reader is None:
        raise MissingFileReaderError(
            f"The message names the stored file {part.file_id!r}: file references need the file store"
        )
    media_type, data = await reader.read_file(part.file_id or "")
    inline = base64.b64encode(data).decode("ascii")
    return part.model_copy(update={"base64": inline, "mime_type": part.mime_type or media_type})
