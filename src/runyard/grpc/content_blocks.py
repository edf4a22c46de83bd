"""runyard's content parts <-> gRPC ``ContentBlock``s, both ways: binary data travels as bytes.

Out: the blocks of a ``content`` wire event. In: the blocks of an ``InvokeRequest``, which then
meet the same checks as ``POST /v1/chat``'s ``content`` (the service's ``check_content``).
"""

from __future__ import annotations

import base64
from typing import Any

from google.protobuf import json_format

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.messages import (
    AgentMessage,
    AudioPart,
    CitationPart,
    ContentBlock,
    FilePart,
    ImagePart,
    JsonPart,
    MediaPart,
    ReasoningPart,
    TextPart,
    VideoPart,
    whole_blocks,
)

__all__ = ["block_from_pb", "block_to_pb", "message_content"]

_MEDIA_KINDS: dict[str, type[MediaPart]] = {
    "image": ImagePart,
    "file": FilePart,
    "audio": AudioPart,
    "video": VideoPart,
}


def block_to_pb(block: ContentBlock) -> pb.ContentBlock:
    """The gRPC block for one content part."""
    if isinstance(block, TextPart):
        return pb.ContentBlock(text=block.text)
    if isinstance(block, ReasoningPart):
        return pb.ContentBlock(reasoning=block.text)
    if isinstance(block, JsonPart):
        return pb.ContentBlock(json=json_format.ParseDict(block.data, pb.ContentBlock().json))
    if isinstance(block, CitationPart):
        citation = pb.CitationBlock(
            url=block.url or "",
            title=block.title or "",
            cited_text=block.cited_text or "",
            start_index=block.start_index,
            end_index=block.end_index,
        )
        return pb.ContentBlock(citation=citation)
    fields: dict[str, Any] = {
        "mime_type": block.mime_type or "",
        "url": block.url or "",
        "data": base64.b64decode(block.base64) if block.base64 is not None else b"",
        "file_id": block.file_id or "",
        "name": block.filename or "",
    }
    if isinstance(block, ImagePart):
        return pb.ContentBlock(image=pb.ImageBlock(**fields))
    if isinstance(block, AudioPart):
        return pb.ContentBlock(audio=pb.FileBlock(**fields))
    if isinstance(block, VideoPart):
        return pb.ContentBlock(video=pb.FileBlock(**fields))
    return pb.ContentBlock(file=pb.FileBlock(**fields))


def message_content(message: AgentMessage) -> list[pb.ContentBlock]:
    """A stored message's content blocks other than its text, for ``Message.content``."""
    return [block_to_pb(block) for block in whole_blocks(message.parts)]


def block_from_pb(block: pb.ContentBlock) -> dict[str, Any]:
    """The content part's JSON for a gRPC block, to validate as a ``ContentBlock`` (so a bad
    one is rejected naming its field, as on HTTP)."""
    kind = block.WhichOneof("block")
    if kind is None:
        return {}
    if kind in ("text", "reasoning"):
        return {"type": kind, "text": getattr(block, kind)}
    if kind == "json":
        return {"type": "json", "data": json_format.MessageToDict(block.json)}
    if kind == "citation":
        c = block.citation
        found = {"url": c.url, "title": c.title, "cited_text": c.cited_text}
        indexes = {n: getattr(c, n) for n in ("start_index", "end_index") if c.HasField(n)}
        return {"type": "citation", **{k: v for k, v in found.items() if v}, **indexes}
    media = getattr(block, kind)
    fields = {
        "mime_type": media.mime_type,
        "url": media.url,
        "file_id": media.file_id,
        "filename": media.name,
    }
    part = {"type": _MEDIA_KINDS[kind].model_fields["type"].default}
    part.update({name: value for name, value in fields.items() if value})
    if media.data:
        part["base64"] = base64.b64encode(media.data).decode("ascii")
    return part
