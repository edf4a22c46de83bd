"""LangChain v1 standard content blocks <-> runyard's parts, field for field (docs/content.md).

The blocks are plain dicts (LangChain's ``TypedDict``s), so this needs no LangChain import. A
LangChain text block's ``annotations`` (citations) become ``CitationPart``s right after its
``TextPart``, and go back onto that text block; ``id``, ``index`` and ``filename`` ride in
``extras``, so ``from_langchain_blocks(to_langchain_blocks(x))`` and the reverse are lossless for
every block kind listed in the table.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any

from runyard.messages.parts import (
    AudioPart,
    CitationPart,
    FilePart,
    ImagePart,
    JsonPart,
    MediaPart,
    MessagePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    VideoPart,
)

__all__ = [
    "from_langchain_block",
    "from_langchain_blocks",
    "to_langchain_block",
    "to_langchain_blocks",
]

_MEDIA: dict[str, type[MediaPart]] = {
    "image": ImagePart,
    "audio": AudioPart,
    "video": VideoPart,
    "file": FilePart,
}
_MEDIA_FIELDS = ("mime_type", "base64", "file_id", "url")
_KEPT_IN_EXTRAS = ("id", "index")
_PLAIN_TEXT = "text-plain"


def from_langchain_blocks(blocks: Iterable[Mapping[str, Any]]) -> list[MessagePart]:
    """runyard's parts for LangChain ``content_blocks`` (a text's citations follow it)."""
    parts: list[MessagePart] = []
    for block in blocks:
        parts.append(from_langchain_block(block))
        if block.get("type") == "text":
            parts.extend(_citation(a) for a in block.get("annotations") or () if _is_citation(a))
    return parts


def from_langchain_block(block: Mapping[str, Any]) -> MessagePart:
    """The part for one block (a text block's annotations are left to ``from_langchain_blocks``).

    Raises ``ValueError`` naming the type for a block that is no content (``tool_call_chunk``,
    ``server_tool_call``, …).
    """
    kind = block.get("type")
    if kind == "text":
        return TextPart(text=block["text"])
    if kind == "reasoning":
        extras = block.get("extras") or {}
        return ReasoningPart(text=block.get("reasoning", ""), signature=extras.get("signature"))
    if kind in _MEDIA:
        return _MEDIA[kind](
            **{name: block[name] for name in _MEDIA_FIELDS if block.get(name) is not None},
            **_filename_and_extras(block),
        )
    if kind == _PLAIN_TEXT:
        return _from_plain_text(block)
    if kind == "non_standard":
        return JsonPart(data=block.get("value"))
    if kind == "tool_call":
        return ToolCallPart(
            tool_call_id=block.get("id") or "", tool_name=block["name"], args=block["args"]
        )
    raise ValueError(f"A LangChain {kind!r} block has no runyard content part")


def to_langchain_blocks(parts: Iterable[MessagePart]) -> list[dict[str, Any]]:
    """LangChain ``content_blocks`` for runyard's parts; a citation goes onto the text before it."""
    blocks: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, CitationPart) and blocks and blocks[-1]["type"] == "text":
            blocks[-1].setdefault("annotations", []).append(_citation_block(part))
        else:
            blocks.append(to_langchain_block(part))
    return blocks


def to_langchain_block(part: MessagePart) -> dict[str, Any]:
    """The LangChain block for one part (a lone citation is an empty text citing it)."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ReasoningPart):
        block: dict[str, Any] = {"type": "reasoning", "reasoning": part.text}
        if part.signature is not None:
            block["extras"] = {"signature": part.signature}
        return block
    if isinstance(part, ImagePart | AudioPart | VideoPart | FilePart):
        return _media_block(part)
    if isinstance(part, JsonPart):
        value = part.data if isinstance(part.data, dict) else {"json": part.data}
        return {"type": "non_standard", "value": value}
    if isinstance(part, CitationPart):
        return {"type": "text", "text": "", "annotations": [_citation_block(part)]}
    if isinstance(part, ToolCallPart):
        return {
            "type": "tool_call",
            "id": part.tool_call_id,
            "name": part.tool_name,
            "args": part.args,
        }
    raise ValueError(f"A {part.type!r} part has no LangChain content block")


def _filename_and_extras(block: Mapping[str, Any]) -> dict[str, Any]:
    extras = dict(block.get("extras") or {})
    extras.update({name: block[name] for name in _KEPT_IN_EXTRAS if name in block})
    filename = extras.pop("filename", None)
    return {"filename": filename, "extras": extras or None}


def _media_block(part: MediaPart) -> dict[str, Any]:
    extras = dict(part.extras or {})
    if extras.pop("langchain_type", None) == _PLAIN_TEXT:
        return _plain_text_block(part, extras)
    block: dict[str, Any] = {"type": part.type}
    block.update({name: extras.pop(name) for name in _KEPT_IN_EXTRAS if name in extras})
    block.update({name: value for name in _MEDIA_FIELDS if (value := getattr(part, name))})
    if part.filename is not None:
        extras["filename"] = part.filename
    if extras:
        block["extras"] = extras
    return block


def _from_plain_text(block: Mapping[str, Any]) -> FilePart:
    # A text-plain block is a text/plain document: its text travels as the file's bytes.
    extras: dict[str, Any] = {"langchain_type": _PLAIN_TEXT, **(block.get("extras") or {})}
    extras.update({name: block[name] for name in (*_KEPT_IN_EXTRAS, "context") if name in block})
    text = block.get("text")
    inline = base64.b64encode(text.encode()).decode("ascii") if text is not None else None
    return FilePart(
        mime_type=block.get("mime_type", "text/plain"),
        base64=inline if inline is not None else block.get("base64"),
        file_id=block.get("file_id"),
        url=block.get("url"),
        filename=block.get("title"),
        extras=extras,
    )


def _plain_text_block(part: MediaPart, extras: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {"type": _PLAIN_TEXT, "mime_type": part.mime_type or "text/plain"}
    block.update(
        {name: extras.pop(name) for name in (*_KEPT_IN_EXTRAS, "context") if name in extras}
    )
    if part.base64 is not None:
        block["text"] = base64.b64decode(part.base64).decode()
    block.update({name: value for name in ("file_id", "url") if (value := getattr(part, name))})
    if part.filename is not None:
        block["title"] = part.filename
    if extras:
        block["extras"] = extras
    return block


def _is_citation(annotation: Any) -> bool:
    return isinstance(annotation, Mapping) and annotation.get("type") == "citation"


def _citation(annotation: Mapping[str, Any]) -> CitationPart:
    extras = dict(annotation.get("extras") or {})
    if "id" in annotation:
        extras["id"] = annotation["id"]
    return CitationPart(
        url=annotation.get("url"),
        title=annotation.get("title"),
        cited_text=annotation.get("cited_text"),
        start_index=annotation.get("start_index"),
        end_index=annotation.get("end_index"),
        extras=extras or None,
    )


def _citation_block(part: CitationPart) -> dict[str, Any]:
    extras = dict(part.extras or {})
    block: dict[str, Any] = {"type": "citation"}
    if "id" in extras:
        block["id"] = extras.pop("id")
    for name in ("url", "title", "cited_text", "start_index", "end_index"):
        if (value := getattr(part, name)) is not None:
            block[name] = value
    if extras:
        block["extras"] = extras
    return block
