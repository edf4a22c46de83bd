"""The checks a user's content blocks pass before a run starts, the same on every surface.

A block is refused (4xx naming it, nothing stored) when it is reasoning (the model's alone), when
its inline data is larger than ``ContentRules.max_inline_bytes``, when its media type is not one a
model can take for its kind, when it names a stored file the caller cannot see, or when no file
store is configured.

Which media types a model can take: runyard cannot ask a model, so it accepts, per kind, the
types every major provider's vision, audio and document inputs take (OpenAI, Anthropic, Google,
as pydantic-ai maps them), and the kind must match the type (an ``image`` block of
``application/pdf`` is refused). A provider that takes fewer still answers with its own error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from runyard.json_text import is_storable
from runyard.messages import (
    AudioPart,
    ContentBlock,
    FilePart,
    ImagePart,
    MediaPart,
    ReasoningPart,
    TextPart,
    VideoPart,
    media_size,
)
from runyard.service.content.files import FileStore
from runyard.service.errors import ErrorKind, ServiceError

__all__ = [
    "ACCEPTED_MEDIA_TYPES",
    "DEFAULT_MAX_INLINE_BYTES",
    "ContentRefused",
    "ContentRules",
    "ContentTooLarge",
    "FileStoreMissing",
    "UnknownFile",
    "check_content",
    "media_type_pattern",
]

DEFAULT_MAX_INLINE_BYTES = 512 * 1024
"""Inline data of one block, decoded: larger files are uploaded (``/v1/files``) and named."""

ACCEPTED_MEDIA_TYPES: dict[str, frozenset[str]] = {
    "image": frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"}),
    "audio": frozenset(
        {
            "audio/wav",
            "audio/x-wav",
            "audio/mpeg",
            "audio/mp3",
            "audio/ogg",
            "audio/flac",
            "audio/aac",
            "audio/webm",
            "audio/mp4",
        }
    ),
    "video": frozenset({"video/mp4", "video/webm", "video/quicktime", "video/mpeg"}),
    "file": frozenset(
        {
            "application/pdf",
            "text/plain",
            "text/markdown",
            "text/csv",
            "text/html",
            "application/json",
        }
    ),
}
"""Per kind, the media types a model is sent (see the module's docstring for why these)."""


def media_type_pattern(kind: str) -> str:
    """The JSON Schema pattern of the ``mime_type`` a block of ``kind`` may name: one of its
    accepted types, parameters after a ``;`` allowed (the check reads the part before it)."""
    types = "|".join(re.escape(media_type) for media_type in sorted(ACCEPTED_MEDIA_TYPES[kind]))
    return rf"^\s*(?:{types})\s*(?:;.*)?$"


class ContentRefused(ServiceError):
    """A content block cannot be sent; ``field`` names it (``content.1.mime_type``)."""

    code = "invalid_content"
    kind: ClassVar[ErrorKind] = "invalid"

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason

    def details(self) -> dict[str, Any]:
        """The field, in the shape of a validation error's ``fields``."""
        return {"fields": [{"field": self.field, "message": str(self)}]}


class ContentTooLarge(ContentRefused):
    """A block's inline data is larger than the server takes inline."""

    code = "content_too_large"
    kind = "too_large"


class UnknownFile(ContentRefused):
    """A block names a stored file the caller cannot see (unknown, or another owner's)."""

    code = "file_not_found"
    kind = "not_found"


class FileStoreMissing(ContentRefused):
    """A block names a stored file, and this server has no file store."""

    code = "file_store_unavailable"
    kind = "rejected"


@dataclass(frozen=True, slots=True)
class ContentRules:
    """What the server takes inline (``RUNYARD_MAX_INLINE_CONTENT_BYTES``)."""

    max_inline_bytes: int = DEFAULT_MAX_INLINE_BYTES


async def check_content(
    blocks: Sequence[ContentBlock],
    *,
    rules: ContentRules,
    files: FileStore | None,
    field: str = "content",
) -> None:
    """Refuse the first block that cannot be sent (``ContentRefused`` naming
    ``{field}.{index}.{name}``); a stored file is looked up through ``files``."""
    for index, block in enumerate(blocks):
        where = f"{field}.{index}"
        if isinstance(block, TextPart) and not is_storable(block.text):
            raise ContentRefused(f"{where}.text", "must not contain a NUL or a lone surrogate")
        if isinstance(block, ReasoningPart):
            raise ContentRefused(f"{where}.type", "reasoning is the model's, not a user's")
        if isinstance(block, ImagePart | AudioPart | VideoPart | FilePart):
            await _check_media(block, where, rules, files)


async def _check_media(
    block: MediaPart, where: str, rules: ContentRules, files: FileStore | None
) -> None:
    size = media_size(block)
    if size is not None and size > rules.max_inline_bytes:
        raise ContentTooLarge(
            f"{where}.base64",
            f"{size} bytes inline is more than {rules.max_inline_bytes}: upload it to "
            "/v1/files and send its file_id",
        )
    mime_type = block.mime_type
    if block.file_id is not None:
        # Looked up even beside inline data: the run references every file a message names.
        stored = await _stored_type(block.file_id, where, files)
        mime_type = mime_type or stored
    if mime_type is not None:
        _check_type(block.type, mime_type.split(";")[0].strip().lower(), where)


async def _stored_type(file_id: str, where: str, files: FileStore | None) -> str:
    if files is None:
        raise FileStoreMissing(
            f"{where}.file_id", "file references need the file store, and this server has none"
        )
    try:
        media_type, _data = await files.read_file(file_id)
    except LookupError:
        raise UnknownFile(f"{where}.file_id", f"no file {file_id!r} for this caller") from None
    return media_type


def _check_type(kind: str, mime_type: str, where: str) -> None:
    accepted = ACCEPTED_MEDIA_TYPES[kind]
    if mime_type in accepted:
        return
    wanted = ", ".join(sorted(accepted))
    raise ContentRefused(
        f"{where}.mime_type",
        f"a {kind} block of {mime_type!r} cannot be sent to a model; {kind} takes {wanted}",
    )
