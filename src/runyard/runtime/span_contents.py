"""A model call's prompt and answer in the OpenTelemetry GenAI conventions' message shape.

``gen_ai.input.messages``, ``gen_ai.output.messages`` and ``gen_ai.system_instructions`` are
lists of ``{"role", "parts": [...]}`` (instructions: of parts), each part typed ``text``,
``reasoning``, ``tool_call`` (``id``, ``name``, ``arguments``), ``tool_call_response`` (``id``,
``response``), ``uri`` / ``file`` / ``blob`` (media, with ``modality`` and ``mime_type``) — see
https://opentelemetry.io/docs/specs/semconv/gen-ai/. Inline media bytes are left out (a span is
no place for a picture): a ``blob`` part says only what it was. The model span offers these as
``LazyAttributes``, so they are built only when a trace records contents, and then pass the
redactor like every attribute.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runyard.messages import (
    AgentMessage,
    JsonPart,
    MessagePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from runyard.models import FinishReason

__all__ = ["input_messages", "output_messages", "system_instructions"]

_FINISH_REASONS: dict[str, str] = {
    "tool-calls": "tool_call",
    "content-filter": "content_filter",
}
"""runyard's finish reasons that the conventions spell otherwise."""


def input_messages(messages: Sequence[AgentMessage]) -> list[dict[str, Any]]:
    """The messages a model call sent, as ``gen_ai.input.messages``."""
    return [_message(message) for message in messages]


def output_messages(message: AgentMessage, finish_reason: FinishReason) -> list[dict[str, Any]]:
    """The answer of a model call, as ``gen_ai.output.messages``."""
    shaped = _message(message)
    shaped["finish_reason"] = _FINISH_REASONS.get(finish_reason, finish_reason)
    return [shaped]


def system_instructions(instructions: str) -> list[dict[str, Any]]:
    """The instructions a model call sent, as ``gen_ai.system_instructions`` (empty: none)."""
    return [{"type": "text", "content": instructions}] if instructions else []


def _message(message: AgentMessage) -> dict[str, Any]:
    return {"role": message.role, "parts": [_part(part) for part in message.parts]}


def _part(part: MessagePart) -> dict[str, Any]:
    if isinstance(part, TextPart | ReasoningPart):
        return {"type": "text" if isinstance(part, TextPart) else "reasoning", "content": part.text}
    if isinstance(part, ToolCallPart):
        return {
            "type": "tool_call",
            "id": part.tool_call_id,
            "name": part.tool_name,
            "arguments": part.args,
        }
    if isinstance(part, ToolResultPart):
        return {"type": "tool_call_response", "id": part.tool_call_id, "response": part.result}
    if isinstance(part, JsonPart):
        return {"type": "json", "content": part.data}
    return _other(part)


def _other(part: MessagePart) -> dict[str, Any]:
    """Media by reference (a URL or a stored file), inline media without its bytes, citations."""
    fields = part.model_dump(exclude_none=True, exclude={"base64", "extras"})
    kind = fields.pop("type")
    if "url" in fields:
        return {"type": "uri", "modality": kind, "uri": fields.pop("url"), **fields}
    if "file_id" in fields:
        return {"type": "file", "modality": kind, **fields}
    if kind == "citation":
        return {"type": "citation", **fields}
    return {"type": "blob", "modality": kind, **fields}
