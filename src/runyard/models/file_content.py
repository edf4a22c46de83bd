"""``FilePart`` <-> pydantic-ai's file contents (``BinaryContent`` and the ``*Url`` kinds)."""

from __future__ import annotations

import base64
import hashlib

from pydantic_ai.messages import (
    AudioUrl,
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    VideoUrl,
)

from runyard.messages import FilePart

__all__ = ["FileContent", "file_from_content", "file_to_content"]

FileContent = BinaryContent | ImageUrl | AudioUrl | DocumentUrl | VideoUrl


def file_to_content(part: FilePart) -> FileContent:
    """Inline ``data`` becomes ``BinaryContent``; a ``url`` becomes the URL kind its media type names.

    A part with both keeps the data (what the model reads); the filename travels as the identifier.
    """
    if part.data is not None:
        return BinaryContent(
            base64.b64decode(part.data), media_type=part.media_type, identifier=part.filename
        )
    if part.url is None:
        raise ValueError("A file part needs inline data or a url")
    url_kind = _url_kind(part.media_type)
    return url_kind(part.url, media_type=part.media_type, identifier=part.filename)


def file_from_content(content: FileContent) -> FilePart:
    """The ``FilePart`` for a pydantic-ai file; an auto-generated identifier is not a filename."""
    if isinstance(content, BinaryContent):
        return FilePart(
            media_type=content.media_type,
            data=base64.b64encode(content.data).decode("ascii"),
            filename=_filename(content.identifier, content.data),
        )
    return FilePart(
        media_type=content.media_type,
        url=content.url,
        filename=_filename(content.identifier, content.url),
    )


def _url_kind(media_type: str) -> type[ImageUrl | AudioUrl | DocumentUrl | VideoUrl]:
    major = media_type.partition("/")[0]
    kinds: dict[str, type[ImageUrl | AudioUrl | VideoUrl]] = {
        "image": ImageUrl,
        "audio": AudioUrl,
        "video": VideoUrl,
    }
    return kinds.get(major, DocumentUrl)


def _filename(identifier: str, source: str | bytes) -> str | None:
    # pydantic-ai fills a missing identifier with the first 6 hex digits of the content's SHA-1
    # (and serialises it), so that value means "no filename was given".
    raw = source.encode("utf-8") if isinstance(source, str) else source
    default = hashlib.sha1(raw, usedforsecurity=False).hexdigest()[:6]
    return None if identifier == default else identifier
