"""Media parts <-> pydantic-ai's file contents (``BinaryContent`` and the ``*Url`` kinds).

A part that names a stored file (``file_id``) only reaches here once its bytes were read
(``runyard.models.file_references``): pydantic-ai has no way to carry runyard's file ids.
"""

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

from runyard.messages import AudioPart, FilePart, ImagePart, MediaPart, VideoPart

__all__ = ["FileContent", "UnresolvedFileError", "file_from_content", "file_to_content"]

FileContent = BinaryContent | ImageUrl | AudioUrl | DocumentUrl | VideoUrl

_URL_KINDS: dict[str, type[ImageUrl | AudioUrl | VideoUrl | DocumentUrl]] = {
    "image": ImageUrl,
    "audio": AudioUrl,
    "video": VideoUrl,
    "file": DocumentUrl,
}
_PART_KINDS: dict[str, type[MediaPart]] = {
    "image": ImagePart,
    "audio": AudioPart,
    "video": VideoPart,
}


class UnresolvedFileError(ValueError):
    """A part still names a stored file by id: nothing read it before the model call."""


def file_to_content(part: MediaPart) -> FileContent:
    """Inline ``base64`` becomes ``BinaryContent``; a ``url`` the URL kind of the part's type.

    A ``file`` part's URL goes by its media type (an image file is sent as an image). A part with
    both keeps the bytes (what the model reads); the filename travels as the identifier.
    """
    if part.base64 is not None:
        return BinaryContent(
            base64.b64decode(part.base64),
            media_type=part.mime_type or "application/octet-stream",
            identifier=part.filename,
        )
    if part.url is None:
        raise UnresolvedFileError(f"The stored file {part.file_id!r} was not read for the model")
    url_kind = _URL_KINDS[_kind(part)]
    return url_kind(part.url, media_type=part.mime_type, identifier=part.filename)


def file_from_content(content: FileContent) -> MediaPart:
    """The part for a pydantic-ai file; an auto-generated identifier is not a filename."""
    if isinstance(content, BinaryContent):
        kind = _PART_KINDS.get(content.media_type.partition("/")[0], FilePart)
        return kind(
            mime_type=content.media_type,
            base64=base64.b64encode(content.data).decode("ascii"),
            filename=_filename(content.identifier, content.data),
        )
    return _PART_KINDS.get(_kind_of_url(content), FilePart)(
        mime_type=_url_media_type(content),
        url=content.url,
        filename=_filename(content.identifier, content.url),
    )


def _kind_of_url(content: ImageUrl | AudioUrl | DocumentUrl | VideoUrl) -> str:
    return next((kind for kind, url_kind in _URL_KINDS.items() if isinstance(content, url_kind)))


def _url_media_type(content: ImageUrl | AudioUrl | DocumentUrl | VideoUrl) -> str | None:
    try:
        return content.media_type
    except ValueError:  # not given, and the URL's extension does not tell
        return None


def _kind(part: MediaPart) -> str:
    if part.type != "file" or not part.mime_type:
        return part.type
    major = part.mime_type.partition("/")[0]
    return major if major in _PART_KINDS else "file"


def _filename(identifier: str, source: str | bytes) -> str | None:
    # pydantic-ai fills a missing identifier with the first 6 hex digits of the content's SHA-1
    # (and serialises it), so that value means "no filename was given".
    raw = source.encode("utf-8") if isinstance(source, str) else source
    default = hashlib.sha1(raw, usedforsecurity=False).hexdigest()[:6]
    return None if identifier == default else identifier
