"""The parts a message is made of, one pydantic model per kind, discriminated on ``type``.

The content kinds (text, reasoning, image, audio, video, file, json, citation) are runyard's
content blocks: what a user sends, what a model or tool produces, what the ``content`` wire event
carries. Their field names are LangChain v1's standard content blocks' (``type``, ``base64`` /
``url`` / ``file_id``, ``mime_type``), so ``content_blocks`` map onto them field for field
(``runyard.messages.langchain_blocks``, docs/content.md).
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator, model_validator

__all__ = [
    "AudioPart",
    "CitationPart",
    "ContentBlock",
    "FilePart",
    "ImagePart",
    "JsonPart",
    "MediaPart",
    "MessagePart",
    "ReasoningPart",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
    "VideoPart",
    "media_size",
    "whole_blocks",
]


def _tagged(schema: dict[str, Any]) -> None:
    # A part is told apart by its ``type`` (the discriminator), so a body must give it, though
    # each model defaults it: the schema says so.
    schema["required"] = ["type", *(name for name in schema.get("required", []) if name != "type")]


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra=_tagged)


def _is_none(value: object) -> bool:
    return value is None


def _optional() -> Any:
    # Left out of the JSON when unset: content blocks travel on the wire, where a client reads
    # "no url" from an absent key (as in LangChain's blocks), and a stored image stays small.
    return Field(default=None, exclude_if=_is_none)


class TextPart(_Part):
    """Plain text written by the user or the model."""

    type: Literal["text"] = "text"
    text: str


class ReasoningPart(_Part):
    """The model's visible reasoning; ``signature`` is kept so providers can verify it on replay."""

    type: Literal["reasoning"] = "reasoning"
    text: str
    signature: str | None = None
    provider_name: str | None = None


class ToolCallPart(_Part):
    """A call the model asked for; ``args`` are already parsed into a JSON object."""

    type: Literal["tool-call"] = "tool-call"
    tool_call_id: str
    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolResultPart(_Part):
    """What a tool call produced, as the model sees it; ``is_error`` marks a failed call."""

    type: Literal["tool-result"] = "tool-result"
    tool_call_id: str
    tool_name: str
    result: Any = None
    is_error: bool = False


BASE64_PATTERN = r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
"""Standard base64 with its padding: what ``b64decode(..., validate=True)`` takes."""


def _given(name: str) -> dict[str, Any]:
    return {"required": [name], "properties": {name: {"type": "string"}}}


_MEDIA_SOURCES: dict[str, Any] = {
    # What the validators below enforce, said in the JSON Schema too (the OpenAPI document).
    "anyOf": [_given("base64"), _given("file_id"), _given("url")],
    "if": _given("base64"),
    "then": {
        "required": ["mime_type"],
        "properties": {"mime_type": {"type": "string", "minLength": 1}},
    },
}


def _media_schema(schema: dict[str, Any]) -> None:
    _tagged(schema)
    schema.update(_MEDIA_SOURCES)


class _Media(_Part):
    """Binary content from one source: inline ``base64``, a stored file's ``file_id``, or a ``url``.

    ``base64`` needs its ``mime_type`` (a model cannot guess it); a ``file_id`` gets it from the
    store and a ``url`` from the server it names. ``extras`` keeps what a foreign format says
    that runyard has no field for (LangChain's ``extras``), so a round trip loses nothing.
    """

    model_config = ConfigDict(json_schema_extra=_media_schema)

    type: str
    mime_type: str | None = _optional()
    base64: str | None = Field(
        default=None, exclude_if=_is_none, json_schema_extra={"pattern": BASE64_PATTERN}
    )
    file_id: str | None = _optional()
    url: str | None = _optional()
    filename: str | None = _optional()
    extras: dict[str, Any] | None = _optional()

    @model_validator(mode="before")
    @classmethod
    def _stored_names(cls, data: Any) -> Any:
        # Messages stored before content blocks named these media_type and data.
        if isinstance(data, dict) and ("media_type" in data or "data" in data):
            data = dict(data)
            if "media_type" in data:
                data.setdefault("mime_type", data.pop("media_type"))
            if "data" in data:
                data.setdefault("base64", data.pop("data"))
        return data

    @field_validator("base64")
    @classmethod
    def _is_base64(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                raise ValueError("is not valid base64") from None
        return value

    @model_validator(mode="after")
    def _has_a_source(self) -> _Media:
        if self.base64 is None and self.file_id is None and self.url is None:
            raise ValueError("needs one of base64, file_id or url")
        if self.base64 is not None and not self.mime_type:
            raise ValueError("mime_type is required with base64")
        return self


class ImagePart(_Media):
    """An image (``image/png``, ``image/jpeg``, …)."""

    type: Literal["image"] = "image"


class AudioPart(_Media):
    """A sound recording (``audio/wav``, ``audio/mpeg``, …)."""

    type: Literal["audio"] = "audio"


class VideoPart(_Media):
    """A video (``video/mp4``, …)."""

    type: Literal["video"] = "video"


class FilePart(_Media):
    """Any other file: a document (``application/pdf``, ``text/plain``, …) or opaque bytes."""

    type: Literal["file"] = "file"


class JsonPart(_Part):
    """Structured JSON, for a client to render as data (a tree, a table) rather than prose."""

    type: Literal["json"] = "json"
    data: Any = None


class CitationPart(_Part):
    """A source the answer rests on: where it is (``url``, ``title``) and what it said.

    ``start_index`` / ``end_index`` locate the cited span in the message's text, when known.
    """

    type: Literal["citation"] = "citation"
    url: str | None = _optional()
    title: str | None = _optional()
    cited_text: str | None = _optional()
    start_index: StrictInt | None = _optional()
    end_index: StrictInt | None = _optional()
    extras: dict[str, Any] | None = _optional()


MediaPart = ImagePart | AudioPart | VideoPart | FilePart
"""A part carrying binary content (inline, by stored file or by URL)."""

ContentBlock = Annotated[
    TextPart
    | ReasoningPart
    | ImagePart
    | AudioPart
    | VideoPart
    | FilePart
    | JsonPart
    | CitationPart,
    Field(discriminator="type"),
]
"""A content block: what a message shows, as against the tool traffic of the loop."""

MessagePart = Annotated[
    TextPart
    | ReasoningPart
    | ToolCallPart
    | ToolResultPart
    | ImagePart
    | AudioPart
    | VideoPart
    | FilePart
    | JsonPart
    | CitationPart,
    Field(discriminator="type"),
]


def whole_blocks(parts: Sequence[MessagePart]) -> list[ContentBlock]:
    """The content blocks of ``parts`` that arrive whole (media, JSON, sources), as against text
    and reasoning, which stream as deltas, and tool traffic: what a ``content`` event carries."""
    return [
        part
        for part in parts
        if isinstance(part, ImagePart | AudioPart | VideoPart | FilePart | JsonPart | CitationPart)
    ]


def media_size(part: MediaPart) -> int | None:
    """The decoded size in bytes of inline content; None for a reference (file_id or url)."""
    if part.base64 is None:
        return None
    data = part.base64.rstrip("=")
    return len(data) * 3 // 4
