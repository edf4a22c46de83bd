"""MCP content <-> runyard's content blocks.

In: an agent tool's ``content`` argument lists blocks, each MCP's own content (``image`` /
``audio`` with ``data`` and ``mimeType``, an embedded ``resource`` with its ``blob`` or ``text``, a
``resource_link``) or runyard's (docs/content.md). Out: the blocks an answer produced follow its
text in the result: images and audio as ``ImageContent`` / ``AudioContent``, files as embedded
resources (``BlobResourceContents``), URLs and stored files and citations as ``ResourceLink``s,
JSON as text.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mcp.types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
)
from mcp.types import (
    ContentBlock as McpBlock,
)
from pydantic import TypeAdapter, ValidationError

from runyard.faces.face_content import block_url, media_kind
from runyard.messages import (
    AudioPart,
    CitationPart,
    ContentBlock,
    ImagePart,
    JsonPart,
    ReasoningPart,
    TextPart,
)

__all__ = ["block_arguments", "mcp_content"]

_blocks: TypeAdapter[ContentBlock] = TypeAdapter(ContentBlock)


def block_arguments(given: Any) -> list[ContentBlock]:
    """The blocks of a call's ``content`` argument; ``ValueError`` naming the first bad one."""
    if not isinstance(given, list):
        raise ValueError("content: a list of content blocks")
    blocks = []
    for index, item in enumerate(given):
        try:
            blocks.append(_blocks.validate_python(_runyard_shape(item)))
        except (ValidationError, KeyError, TypeError) as exc:
            raise ValueError(f"content.{index}: {_reason(exc)}") from None
    return blocks


def mcp_content(blocks: list[ContentBlock]) -> list[McpBlock]:
    """A result's content for the blocks an answer produced (text and reasoning are its text)."""
    return [made for block in blocks if (made := _mcp_block(block)) is not None]


def _runyard_shape(item: Any) -> Any:
    """MCP's own content as a runyard block's JSON; anything else is left to validation."""
    if not isinstance(item, dict):
        return item
    kind = item.get("type")
    if kind in ("image", "audio") and "data" in item:
        return {"type": kind, "mime_type": item["mimeType"], "base64": item["data"]}
    if kind == "resource":
        resource = item["resource"]
        mime_type = resource.get("mimeType") or "text/plain"
        data = resource.get("blob")
        if data is None:
            data = base64.b64encode(resource["text"].encode()).decode("ascii")
        name = resource["uri"].rstrip("/").rsplit("/", 1)[-1] or None
        kind = media_kind(mime_type).model_fields["type"].default
        return {"type": kind, "mime_type": mime_type, "base64": data, "filename": name}
    if kind == "resource_link":
        mime_type = item.get("mimeType")
        fields = {"url": item["uri"], "filename": item.get("name")}
        return {
            "type": media_kind(mime_type).model_fields["type"].default,
            "mime_type": mime_type,
            **fields,
        }
    return item


def _mcp_block(block: ContentBlock) -> McpBlock | None:
    if isinstance(block, TextPart | ReasoningPart):
        return None
    if isinstance(block, JsonPart):
        return TextContent(text=json.dumps(block.data))
    if isinstance(block, CitationPart):
        return ResourceLink(name=block.title or block.url or "source", uri=block.url or "")
    if block.base64 is not None and isinstance(block, ImagePart):
        return ImageContent(data=block.base64, mime_type=block.mime_type or "image/png")
    if block.base64 is not None and isinstance(block, AudioPart):
        return AudioContent(data=block.base64, mime_type=block.mime_type or "audio/wav")
    name = block.filename or block.file_id or block.type
    if block.base64 is not None:
        uri = f"runyard://content/{name}"
        blob = BlobResourceContents(uri=uri, mime_type=block.mime_type, blob=block.base64)
        return EmbeddedResource(resource=blob)
    return ResourceLink(name=name, uri=block_url(block), mime_type=block.mime_type)


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"][1:])
        return f"{where}: {error['msg']}" if where else error["msg"]
    return f"missing or malformed: {exc}"
