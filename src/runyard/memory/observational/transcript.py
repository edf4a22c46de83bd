"""Messages as the observer reads them: one dated line per message, tool payloads compacted.

Tool results are often large (workflow definitions, execution logs); the observer needs their
gist, not every byte, and must never see secrets. Long strings, lists and objects are cut with
a note saying how much was left out, and values under sensitive keys are replaced.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from runyard.memory.observational.log_format import stamp
from runyard.messages import (
    AgentMessage,
    AudioPart,
    CustomMessage,
    FilePart,
    ImagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    VideoPart,
)

__all__ = ["compact_value", "render_transcript"]

_MAX_STRING = 500
_MAX_ITEMS = 20
_MAX_KEYS = 40
_MAX_VALUE = 2000
_SECRET_KEY = re.compile(
    r"pass(word)?|secret|token|api[-_]?key|authorization|cookie|private[-_]?key|credential",
    re.IGNORECASE,
)


def render_transcript(messages: Sequence[AgentMessage | CustomMessage]) -> str:
    """The messages as ``[date time] role: …`` lines; UI-only messages are left out."""
    lines: list[str] = []
    for message in messages:
        if not isinstance(message, AgentMessage):
            continue
        date, time = stamp(message.created_at)
        body = [_part(part) for part in message.parts]
        text = "\n".join(piece for piece in body if piece)
        lines.append(f"[{date} {time}] {message.role}: {text}")
    return "\n".join(lines)


def compact_value(value: Any) -> str:
    """A tool payload as short JSON: long parts cut, secrets redacted, at most ~2 000 chars."""
    text = json.dumps(_compact(value), ensure_ascii=False, default=str)
    if len(text) > _MAX_VALUE:
        return f"{text[:_MAX_VALUE]}...[truncated {len(text) - _MAX_VALUE} chars]"
    return text


def _part(part: Any) -> str:
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, ToolCallPart):
        return f"tool_call {part.tool_name} input={compact_value(part.args)}"
    if isinstance(part, ToolResultPart):
        kind = "error" if part.is_error else "output"
        return f"tool_result {part.tool_name} {kind}={compact_value(part.result)}"
    if isinstance(part, ImagePart | AudioPart | VideoPart | FilePart):
        return f"[{part.type} {part.filename or part.mime_type or part.url or part.file_id}]"
    return ""  # reasoning: the model's scratch work is not evidence of anything


def _compact(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) <= _MAX_STRING:
            return value
        return f"{value[:_MAX_STRING]}...[truncated {len(value) - _MAX_STRING} chars]"
    if isinstance(value, list | tuple):
        items = [_compact(item) for item in value[:_MAX_ITEMS]]
        if len(value) > _MAX_ITEMS:
            items.append(f"...[{len(value) - _MAX_ITEMS} more items]")
        return items
    if isinstance(value, dict):
        keys = list(value)[:_MAX_KEYS]
        out = {
            str(k): "[REDACTED]" if _SECRET_KEY.search(str(k)) else _compact(value[k]) for k in keys
        }
        if len(value) > _MAX_KEYS:
            out["..."] = f"[{len(value) - _MAX_KEYS} more keys]"
        return out
    return value
