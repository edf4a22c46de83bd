"""The content blocks ``POST /v1/chat`` takes, as its OpenAPI document describes them.

They are runyard's content parts, validated the same way; what they add is the schema of what
``check_content`` then enforces on every surface (the media types a model is sent, per kind;
stored files by their id), so a client generated from the document sends what is accepted.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from runyard.ids import FILE_ID_PATTERN
from runyard.messages import (
    AudioPart,
    CitationPart,
    FilePart,
    ImagePart,
    JsonPart,
    TextPart,
    VideoPart,
)
from runyard.service.content import media_type_pattern

__all__ = ["InputContentBlock"]


def _absent(value: object) -> bool:
    return value is None


def _media_type(kind: str) -> Any:
    return Field(
        default=None,
        exclude_if=_absent,
        json_schema_extra={"pattern": media_type_pattern(kind)},
        description=f"the {kind}'s media type: one a model is sent (docs/content.md)",
    )


def _file_id() -> Any:
    return Field(
        default=None,
        exclude_if=_absent,
        json_schema_extra={"pattern": FILE_ID_PATTERN},
        description="a stored file's id, as POST /v1/files answered it",
    )


class ImageInput(ImagePart):
    """An image block; its ``mime_type`` pattern lists the image types accepted."""

    mime_type: str | None = _media_type("image")
    file_id: str | None = _file_id()


class AudioInput(AudioPart):
    """An audio block; its ``mime_type`` pattern lists the audio types accepted."""

    mime_type: str | None = _media_type("audio")
    file_id: str | None = _file_id()


class VideoInput(VideoPart):
    """A video block; its ``mime_type`` pattern lists the video types accepted."""

    mime_type: str | None = _media_type("video")
    file_id: str | None = _file_id()


class FileInput(FilePart):
    """A file block; its ``mime_type`` pattern lists the document types accepted."""

    mime_type: str | None = _media_type("file")
    file_id: str | None = _file_id()


InputContentBlock = Annotated[
    TextPart | ImageInput | AudioInput | VideoInput | FileInput | JsonPart | CitationPart,
    Field(discriminator="type"),
]
"""A content block of a request: a ``ContentBlock`` whose schema says what the server takes
(no ``reasoning``: that is the model's)."""
