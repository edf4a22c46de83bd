"""Content blocks a tool returned: a tool may answer with an image, a file or a list mixing blocks
with other values, as objects at run time or as their JSON once stored."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from runyard.messages.parts import (
    AudioPart,
    CitationPart,
    FilePart,
    ImagePart,
    JsonPart,
    VideoPart,
)

__all__ = ["ToolBlock", "tool_block", "tool_blocks"]

ToolBlock = ImagePart | AudioPart | VideoPart | FilePart | JsonPart | CitationPart
"""A block a tool result can carry: the kinds a ``content`` event shows (not text)."""

_KINDS = {"image", "audio", "video", "file", "json", "citation"}
_block: TypeAdapter[ToolBlock] = TypeAdapter(ToolBlock)


def tool_blocks(result: Any) -> list[ToolBlock]:
    """The content blocks in a tool's result: the result itself, or the items of a list that
    are blocks (as objects, or as a block's JSON: a dict with a block's ``type`` that validates
    as one)."""
    items = result if isinstance(result, list) else [result]
    return [block for item in items if (block := tool_block(item)) is not None]


def tool_block(item: Any) -> ToolBlock | None:
    """``item`` as a content block, when it is one (an object, or a block's JSON)."""
    if isinstance(item, ImagePart | AudioPart | VideoPart | FilePart | JsonPart | CitationPart):
        return item
    if isinstance(item, dict) and item.get("type") in _KINDS:
        try:
            return _block.validate_python(item)
        except ValidationError:
            return None
    return None
