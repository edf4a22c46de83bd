"""OpenAI chat content parts <-> runyard's content blocks.

In (a user message's ``content`` list): ``text``; ``image_url`` (a URL or a ``data:`` URL;
``detail`` kept in ``extras``); ``input_audio`` (base64 ``data`` and its ``format``); ``file``
(``file_data`` as a ``data:`` URL, or a runyard ``file_id``, with its ``filename``). Any other part
is refused naming it.

Out: the assistant message has no standard image or file parts, so images go in the delta's and
message's ``images`` (``image_url`` parts, the convention OpenRouter and vLLM use) and every other
block in ``x_runyard_content`` (runyard's blocks, as ``/v1`` sends them).
"""

from __future__ import annotations

import mimetypes
from typing import Any

from pydantic import ValidationError

from runyard.faces.face_content import block_url, media_from_url
from runyard.faces.invalid_body import invalid_field
from runyard.messages import AudioPart, ContentBlock, FilePart, ImagePart, TextPart

__all__ = ["AUDIO_FORMATS", "answer_content", "user_content"]

AUDIO_FORMATS = {"wav": "audio/wav", "mp3": "audio/mpeg"}
"""``input_audio.format``'s media types."""


def user_content(parts: list[dict[str, Any]], path: str) -> list[ContentBlock]:
    """The blocks of a user message's content parts, in order (422 naming a bad part)."""
    return [_block(part, f"{path}.{index}") for index, part in enumerate(parts)]


def answer_content(blocks: list[ContentBlock]) -> dict[str, Any]:
    """The delta fields for blocks a run produced: ``images`` and ``x_runyard_content``."""
    fields: dict[str, Any] = {}
    images = [b for b in blocks if isinstance(b, ImagePart)]
    others = [b.model_dump(mode="json") for b in blocks if not isinstance(b, ImagePart)]
    if images:
        fields["images"] = [
            {"type": "image_url", "image_url": {"url": block_url(image)}} for image in images
        ]
    if others:
        fields["x_runyard_content"] = others
    return fields


def _block(part: dict[str, Any], path: str) -> ContentBlock:
    kind = part.get("type")
    try:
        if kind == "text":
            return TextPart(text=part["text"])
        if kind == "image_url":
            image = part["image_url"]
            image = {"url": image} if isinstance(image, str) else image
            extras = {"detail": image["detail"]} if image.get("detail") else None
            return media_from_url(image["url"], ImagePart, extras=extras)
        if kind == "input_audio":
            audio = part["input_audio"]
            mime_type = AUDIO_FORMATS.get(audio.get("format"), f"audio/{audio.get('format')}")
            return AudioPart(mime_type=mime_type, base64=audio["data"])
        if kind == "file":
            return _file(part["file"])
    except (KeyError, TypeError) as exc:
        raise invalid_field(f"{path}.{kind}", f"missing or malformed: {exc}") from None
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join([path, *(str(p) for p in error["loc"])])
        raise invalid_field(where, error["msg"]) from None
    raise invalid_field(f"{path}.type", f"{kind!r} is not a content part runyard takes")


def _file(file: dict[str, Any]) -> FilePart | ContentBlock:
    name = file.get("filename")
    data = file.get("file_data")
    if data and data.startswith("data:"):
        return media_from_url(data, FilePart, filename=name)
    if data:  # bare base64: the filename's extension says the type
        mime_type = mimetypes.guess_type(name or "")[0] or "application/octet-stream"
        return FilePart(mime_type=mime_type, base64=data, filename=name)
    return FilePart(file_id=file["file_id"], filename=name)
