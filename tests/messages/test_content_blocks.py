"""Content blocks: one typed model, validated, and LangChain v1's standard blocks map onto it both ways."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from pydantic import TypeAdapter, ValidationError

from runyard.messages import (
    CitationPart,
    ContentBlock,
    FilePart,
    ImagePart,
    JsonPart,
    TextPart,
    from_langchain_blocks,
    media_size,
    to_langchain_blocks,
)

_PNG = base64.b64encode(b"\x89PNG fake").decode()
_blocks = TypeAdapter(list[ContentBlock])

LANGCHAIN_BLOCKS: list[dict[str, Any]] = [
    {
        "type": "text",
        "text": "See the chart.",
        "annotations": [
            {"type": "citation", "id": "c1", "url": "https://example.com", "title": "Ex"},
            {"type": "citation", "cited_text": "42", "start_index": 0, "end_index": 3},
        ],
    },
    {"type": "reasoning", "reasoning": "Look first.", "extras": {"signature": "sig"}},
    {"type": "image", "base64": _PNG, "mime_type": "image/png", "id": "img1"},
    {"type": "image", "url": "https://example.com/a.png"},
    {"type": "audio", "file_id": "file_1", "mime_type": "audio/wav"},
    {"type": "video", "url": "https://example.com/v.mp4", "mime_type": "video/mp4"},
    {
        "type": "file",
        "base64": _PNG,
        "mime_type": "application/pdf",
        "extras": {"filename": "r.pdf", "cache": True},
    },
    {"type": "text-plain", "mime_type": "text/plain", "text": "notes", "title": "n.txt"},
    {"type": "non_standard", "value": {"rows": [1, 2]}},
    {"type": "tool_call", "id": "call_1", "name": "calculator", "args": {"expression": "1"}},
]


def test_langchain_blocks_survive_the_round_trip_through_runyard_parts() -> None:
    parts = from_langchain_blocks(LANGCHAIN_BLOCKS)
    assert to_langchain_blocks(parts) == LANGCHAIN_BLOCKS


def test_langchain_blocks_become_the_matching_typed_parts() -> None:
    parts = from_langchain_blocks(LANGCHAIN_BLOCKS)
    assert [p.type for p in parts] == [
        "text",
        "citation",
        "citation",
        "reasoning",
        "image",
        "image",
        "audio",
        "video",
        "file",
        "file",
        "json",
        "tool-call",
    ]
    assert parts[8] == FilePart(
        mime_type="application/pdf", base64=_PNG, filename="r.pdf", extras={"cache": True}
    )


def test_a_langchain_messages_own_content_blocks_map_without_loss() -> None:
    message = AIMessage(
        content_blocks=[
            {"type": "text", "text": "Here is the image."},
            {"type": "image", "base64": _PNG, "mime_type": "image/png"},
        ]
    )
    blocks = [dict(b) for b in message.content_blocks]
    assert to_langchain_blocks(from_langchain_blocks(blocks)) == blocks


def test_content_blocks_validate_from_their_json() -> None:
    parsed = _blocks.validate_python(
        [
            {"type": "text", "text": "hi"},
            {"type": "image", "mime_type": "image/png", "base64": _PNG},
            {"type": "json", "data": [1]},
            {"type": "citation", "url": "https://example.com"},
        ]
    )
    assert parsed == [
        TextPart(text="hi"),
        ImagePart(mime_type="image/png", base64=_PNG),
        JsonPart(data=[1]),
        CitationPart(url="https://example.com"),
    ]
    assert media_size(parsed[1]) == len(b"\x89PNG fake")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("block", "location", "message"),
    [
        (
            {"type": "image", "mime_type": "image/png", "base64": "not base64!"},
            (1, "image", "base64"),
            "valid base64",
        ),
        ({"type": "image", "base64": _PNG}, (1, "image"), "mime_type is required"),
        ({"type": "file", "mime_type": "application/pdf"}, (1, "file"), "one of base64"),
        ({"type": "hologram"}, (1,), "does not match any of the expected tags"),
    ],
)
def test_bad_blocks_are_rejected_naming_the_field(
    block: dict[str, Any], location: tuple[Any, ...], message: str
) -> None:
    with pytest.raises(ValidationError) as raised:
        _blocks.validate_python([{"type": "text", "text": "x"}, block])
    (error,) = raised.value.errors()
    assert error["loc"] == location
    assert message in error["msg"]
