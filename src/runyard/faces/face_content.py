"""Content blocks as the foreign protocols carry them: data URLs both ways, and the URL a block a
client cannot hold inline is fetched from (a stored file's).

Every face maps its own parts onto runyard's content blocks with these, so a ``data:`` URL is
read and written in one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from runyard.messages import AudioPart, ContentBlock, FilePart, ImagePart, MediaPart, VideoPart

__all__ = ["UserInput", "block_url", "media_from_url", "media_kind"]

_DATA_URL = re.compile(r"^data:(?P<type>[\w.+-]+/[\w.+-]+)(?:;[^,;]*)*;base64,(?P<data>.*)$", re.S)


@dataclass(frozen=True, slots=True)
class UserInput:
    """What a face's request says as the user: text, and content blocks beside it.

    ``field`` is where the blocks sit in the face's body (``body.messages.2.content``), so a
    block the service refuses is named as the client wrote it.
    """

    text: str
    content: list[ContentBlock] = field(default_factory=list)
    field: str = "content"


def block_url(block: MediaPart) -> str:
    """Where a client reads the block: its data as a ``data:`` URL, its URL, or the stored
    file's ``/v1/files/{id}``."""
    if block.base64 is not None:
        return f"data:{block.mime_type};base64,{block.base64}"
    if block.url is not None:
        return block.url
    return f"/v1/files/{block.file_id}"


def media_kind(mime_type: str | None) -> type[MediaPart]:
    """The block kind for a media type (a document, or anything else, is a file)."""
    major = (mime_type or "").partition("/")[0]
    kinds: dict[str, type[MediaPart]] = {"image": ImagePart, "audio": AudioPart, "video": VideoPart}
    return kinds.get(major, FilePart)


def media_from_url(url: str, kind: type[MediaPart] | None = None, **fields: Any) -> MediaPart:
    """The block for a URL a client sent: inline data for a ``data:`` URL, else the URL.

    ``kind`` defaults to what the data's media type says; ``fields`` (``filename``, ``extras``,
    ``mime_type`` for a plain URL) are added. Raises ``ValueError`` for a malformed block.
    """
    inline = _DATA_URL.match(url)
    if inline is None:
        return (kind or media_kind(fields.get("mime_type")))(url=url, **fields)
    mime_type = inline["type"].lower()
    fields.pop("mime_type", None)
    return (kind or media_kind(mime_type))(mime_type=mime_type, base64=inline["data"], **fields)
