"""runyard messages <-> pydantic-ai messages: the one edge where the two vocabularies meet.

Each ``AgentMessage`` becomes exactly one pydantic-ai message (assistant -> ``ModelResponse``,
every other role -> ``ModelRequest``) carrying the message's id, role, ``created_at`` and
metadata under ``metadata["runyard"]``, so ``from_model_messages(to_model_messages(x)) == x``,
also after a ``ModelMessagesTypeAdapter`` JSON round trip. Requests are never merged:
pydantic-ai's provider adapters already join consecutive requests where an API needs it.

A failed tool result becomes ``ToolReturnPart(outcome="failed")``: the current way pydantic-ai
marks an error, which Anthropic and Google send with their own error flag (``is_error``) and
every other provider sends as the tool's text, which the model reads either way.
(``RetryPromptPart`` is deprecated in 2.68 and would read as a retry request.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_ai import messages as pai
from pydantic_ai.usage import RequestUsage

from runyard.ids import new_id
from runyard.messages import (
    AgentMessage,
    AudioPart,
    CitationPart,
    FilePart,
    ImagePart,
    JsonPart,
    MessagePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    VideoPart,
    tool_block,
    tool_blocks,
)
from runyard.models.file_content import FileContent, file_from_content, file_to_content
from runyard.models.response_details import (
    provider_details,
    response_fields,
    with_part_details,
)

__all__ = [
    "CARRY_KEY",
    "ConvertedMessages",
    "INVALID_TOOL_ARGS_KEY",
    "from_model_messages",
    "from_model_response",
    "parse_tool_args",
    "to_model_messages",
]

ConvertedMessages = dict[str, tuple[AgentMessage, str | None, pai.ModelMessage]]
"""Conversions kept for reuse, by message id: the message, its instructions, its pydantic-ai form."""

CARRY_KEY = "runyard"
"""Key under which a pydantic-ai message's ``metadata`` carries the runyard message's identity."""

INVALID_TOOL_ARGS_KEY = "invalid_tool_args"

_P = TypeVar("_P", bound=BaseModel)


def to_model_messages(
    messages: Sequence[AgentMessage],
    *,
    instructions: str | None = None,
    reuse: ConvertedMessages | None = None,
) -> list[pai.ModelMessage]:
    """pydantic-ai messages for ``messages``; ``instructions`` go on the last request.

    ``reuse`` keeps each conversion by message id, for the next call with the same message
    objects: one that is still the very object converted, with the same instructions, is not
    converted again (its caller does not change recorded messages in place).
    """
    last_request = next(
        (i for i in range(len(messages) - 1, -1, -1) if messages[i].role != "assistant"), None
    )
    if reuse is None:
        return [
            _to_model_message(message, instructions if index == last_request else None)
            for index, message in enumerate(messages)
        ]
    converted: list[pai.ModelMessage] = []
    for index, message in enumerate(messages):
        given = instructions if index == last_request else None
        known = reuse.get(message.id)
        if known is None or known[0] is not message or known[1] != given:
            known = (message, given, _to_model_message(message, given))
            reuse[message.id] = known
        converted.append(known[2])
    return converted


def from_model_messages(messages: Sequence[pai.ModelMessage]) -> list[AgentMessage]:
    """runyard messages for pydantic-ai ones; a request mixing roles splits into one message per role."""
    result: list[AgentMessage] = []
    for message in messages:
        if isinstance(message, pai.ModelResponse):
            result.append(from_model_response(message))
        else:
            result.extend(_from_request(message))
    return result


def from_model_response(response: pai.ModelResponse) -> AgentMessage:
    """The assistant message for one response.

    Tool arguments that are not a JSON object become ``{}``, and the raw text is kept under
    ``metadata["invalid_tool_args"][tool_call_id]`` so the caller can answer with an error.
    """
    parts: list[MessagePart] = []
    invalid: dict[str, str] = {}
    for part in response.parts:
        converted = _from_response_part(part, invalid)
        if converted is not None:
            parts.append(converted)
    message = _with_identity(response.metadata, "assistant", parts, response.timestamp)
    details = provider_details(response)
    if details:
        message.metadata["provider"] = details
    if invalid:
        known = message.metadata.get(INVALID_TOOL_ARGS_KEY) or {}
        message.metadata[INVALID_TOOL_ARGS_KEY] = {**known, **invalid}
    return message


def parse_tool_args(args: str | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Tool arguments as a dict; ``None`` when they are not a JSON object."""
    if args is None or args == "":
        return {}
    if not isinstance(args, str):
        return dict(args)
    try:
        parsed = json.loads(args)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


# --- runyard -> pydantic-ai -------------------------------------------------------------------


def _to_model_message(message: AgentMessage, instructions: str | None) -> pai.ModelMessage:
    carry = {
        CARRY_KEY: {
            "id": message.id,
            "role": message.role,
            "created_at": message.created_at,
            "metadata": message.metadata,
        }
    }
    timestamp = datetime.fromtimestamp(message.created_at / 1000, tz=UTC)
    if message.role == "assistant":
        # Built once with the provider's details: a copy of the response afterwards is
        # measurable on every model call (docs/benchmarks.md, runtime overhead).
        details = message.metadata.get("provider")
        return pai.ModelResponse(
            parts=[
                with_part_details(_to_response_part(part), details, index)
                for index, part in enumerate(p for p in message.parts if _model_made(p))
            ],
            usage=RequestUsage(),
            timestamp=timestamp,
            metadata=carry,
            **response_fields(details),
        )
    return pai.ModelRequest(
        parts=_to_request_parts(message, timestamp),
        timestamp=timestamp,
        instructions=instructions,
        metadata=carry,
    )


def _to_request_parts(message: AgentMessage, timestamp: datetime) -> list[pai.ModelRequestPart]:
    if message.role == "user":
        return [pai.UserPromptPart(_user_content(message), timestamp=timestamp)]
    if message.role == "system":
        return [
            pai.SystemPromptPart(_expect(part, TextPart, message).text, timestamp=timestamp)
            for part in message.parts
        ]
    return [
        _tool_return(_expect(part, ToolResultPart, message), timestamp) for part in message.parts
    ]


def _user_content(message: AgentMessage) -> str | list[pai.UserContent]:
    if len(message.parts) == 1 and isinstance(message.parts[0], TextPart):
        return message.parts[0].text
    return [_user_item(part, message) for part in message.parts]


def _user_item(part: MessagePart, message: AgentMessage) -> pai.UserContent:
    """What the model reads for one part of a user message: data and sources as text."""
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, JsonPart):
        return json.dumps(part.data, ensure_ascii=False)
    if isinstance(part, CitationPart):
        return _citation_text(part)
    if isinstance(part, ImagePart | AudioPart | VideoPart | FilePart):
        return file_to_content(part)
    raise ValueError(f"A {message.role} message cannot hold a {part.type!r} part")


def _citation_text(part: CitationPart) -> str:
    source = " ".join(s for s in (part.title, part.url) if s)
    return f"[source: {source}] {part.cited_text or ''}".rstrip()


def _tool_return(part: ToolResultPart, timestamp: datetime) -> pai.ToolReturnPart:
    return pai.ToolReturnPart(
        tool_name=part.tool_name,
        content=_tool_return_content(part.result),
        tool_call_id=part.tool_call_id,
        outcome="failed" if part.is_error else "success",
        timestamp=timestamp,
    )


def _tool_return_content(result: Any) -> Any:
    """A tool's result as the model reads it: the images and files in it as files (pydantic-ai
    sends them as each provider takes a tool's files), everything else as it is."""
    blocks = tool_blocks(result)
    if not blocks:
        return result
    items = result if isinstance(result, list) else [result]
    return [_tool_item(item) for item in items]


def _tool_item(item: Any) -> Any:
    block = tool_block(item)
    if isinstance(block, ImagePart | AudioPart | VideoPart | FilePart):
        return file_to_content(block)
    if isinstance(block, JsonPart | CitationPart):
        return block.model_dump(mode="json")
    return item


def _to_response_part(part: MessagePart) -> pai.ModelResponsePart:
    if isinstance(part, TextPart):
        return pai.TextPart(part.text)
    if isinstance(part, ReasoningPart):
        return pai.ThinkingPart(
            part.text, signature=part.signature, provider_name=part.provider_name
        )
    if isinstance(part, ToolCallPart):
        return pai.ToolCallPart(part.tool_name, dict(part.args), part.tool_call_id)
    if isinstance(part, ImagePart | AudioPart | VideoPart | FilePart) and part.base64 is not None:
        content = file_to_content(part)
        assert isinstance(content, pai.BinaryContent)
        return pai.FilePart(content)
    raise ValueError(f"An assistant message cannot hold a {part.type!r} part like {part!r}")


def _model_made(part: MessagePart) -> bool:
    """Whether a part of an assistant message goes back to the model: data, sources and linked
    media are shown to people (a tool or a runtime added them), and a model has no part for them."""
    if isinstance(part, JsonPart | CitationPart):
        return False
    return (
        not isinstance(part, ImagePart | AudioPart | VideoPart | FilePart)
        or part.base64 is not None
    )


def _expect(part: MessagePart, kind: type[_P], message: AgentMessage) -> _P:
    if not isinstance(part, kind):
        raise ValueError(f"A {message.role} message cannot hold a {part.type!r} part")
    return part


# --- pydantic-ai -> runyard -------------------------------------------------------------------


def _from_request(request: pai.ModelRequest) -> list[AgentMessage]:
    carried = _carried(request.metadata)
    if carried is not None:
        parts = [p for part in request.parts for p in _from_request_part(part)]
        return [_with_identity(request.metadata, carried["role"], parts, request.timestamp)]
    messages: list[AgentMessage] = []
    for part in request.parts:
        role = _request_part_role(part)
        if role is None:
            continue
        if not messages or messages[-1].role != role:
            messages.append(_with_identity(None, role, [], _part_time(part, request)))
        messages[-1].parts.extend(_from_request_part(part))
    return messages


def _request_part_role(part: pai.ModelRequestPart) -> str | None:
    if isinstance(part, pai.UserPromptPart):
        return "user"
    if isinstance(part, pai.SystemPromptPart):
        return "system"
    if isinstance(part, pai.ToolReturnPart):
        return "tool"
    return None


def _from_request_part(part: pai.ModelRequestPart) -> list[MessagePart]:
    if isinstance(part, pai.SystemPromptPart):
        return [TextPart(text=part.content)]
    if isinstance(part, pai.ToolReturnPart):
        return [
            ToolResultPart(
                tool_call_id=part.tool_call_id,
                tool_name=part.tool_name,
                result=part.content,
                is_error=part.outcome != "success",
            )
        ]
    if isinstance(part, pai.UserPromptPart):
        if isinstance(part.content, str):
            return [TextPart(text=part.content)]
        return [p for item in part.content if (p := _from_user_item(item)) is not None]
    return []


def _from_user_item(item: pai.UserContent) -> MessagePart | None:
    if isinstance(item, str):
        return TextPart(text=item)
    if isinstance(
        item, pai.BinaryContent | pai.ImageUrl | pai.AudioUrl | pai.DocumentUrl | pai.VideoUrl
    ):
        return file_from_content(item)
    return None  # cache points and provider-side uploads have no runyard counterpart


def _from_response_part(part: pai.ModelResponsePart, invalid: dict[str, str]) -> MessagePart | None:
    if isinstance(part, pai.TextPart):
        return TextPart(text=part.content)
    if isinstance(part, pai.ThinkingPart):
        return ReasoningPart(
            text=part.content, signature=part.signature, provider_name=part.provider_name
        )
    if isinstance(part, pai.ToolCallPart):
        args = parse_tool_args(part.args)
        if args is None:
            invalid[part.tool_call_id] = str(part.args)
        return ToolCallPart(
            tool_call_id=part.tool_call_id, tool_name=part.tool_name, args=args or {}
        )
    if isinstance(part, pai.FilePart):
        content: FileContent = part.content
        return file_from_content(content)
    return None  # native (provider-run) tool parts and compaction markers stay provider-side


def _carried(metadata: dict[str, Any] | None) -> dict[str, Any] | None:
    carried = (metadata or {}).get(CARRY_KEY)
    return carried if isinstance(carried, dict) else None


def _with_identity(
    metadata: dict[str, Any] | None, role: Any, parts: list[MessagePart], timestamp: datetime | None
) -> AgentMessage:
    carried = _carried(metadata)
    if carried is None:
        created_at = int(timestamp.timestamp() * 1000) if timestamp else None
        extra = {"created_at": created_at} if created_at is not None else {}
        return AgentMessage(id=new_id("msg"), role=role, parts=parts, **extra)
    return AgentMessage(
        id=carried["id"],
        role=carried["role"],
        parts=parts,
        created_at=carried["created_at"],
        metadata=dict(carried.get("metadata") or {}),
    )


def _part_time(part: pai.ModelRequestPart, request: pai.ModelRequest) -> datetime | None:
    return request.timestamp or getattr(part, "timestamp", None)
