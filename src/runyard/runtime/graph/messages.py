"""runyard's messages <-> LangChain's, for a LangGraph agent's state and what it answers.

A message crosses with its id, so a graph's ``add_messages`` keeps the thread's own messages as
they are and only the ones the graph makes are new. Content goes as LangChain v1 standard
content blocks (``runyard.messages.langchain_blocks``); a block runyard has no part for is kept
as a ``JsonPart`` holding the block, never dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from runyard.messages import (
    AgentMessage,
    JsonPart,
    MessagePart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    from_langchain_blocks,
    to_langchain_blocks,
)

__all__ = ["RUNYARD_OUTPUT", "from_langchain", "to_langchain", "tool_message"]

RUNYARD_OUTPUT = "runyard_output"
"""The ``response_metadata`` mark of a ``ToolMessage`` runyard wrote: its ``artifact`` is the
tool's output, what runyard gives the model. Another tool's artifact is data LangChain keeps
from the model: its result is its content (its blocks as parts, never dropped)."""


def to_langchain(messages: Iterable[AgentMessage], instructions: str = "") -> list[BaseMessage]:
    """The LangChain messages of a conversation, ``instructions`` first as a system message."""
    converted: list[BaseMessage] = [SystemMessage(instructions)] if instructions else []
    for message in messages:
        converted.extend(_to_langchain(message))
    return converted


def from_langchain(message: BaseMessage) -> AgentMessage | None:
    """runyard's message for a LangChain one (None for a kind a thread does not keep)."""
    if isinstance(message, ToolMessage):
        ours = message.response_metadata.get(RUNYARD_OUTPUT)
        result = message.artifact if ours else _content_value(message)
        part = ToolResultPart(
            tool_call_id=message.tool_call_id,
            tool_name=message.name or "",
            result=result,
            is_error=message.status == "error",
        )
        return AgentMessage(role="tool", parts=[part], **_id(message))
    role = _ROLES.get(message.type)
    if role is None:
        return None
    parts = _parts(message.content_blocks)
    if isinstance(message, AIMessage):
        # ``content_blocks`` has the calls too; they must keep their parsed args and ids.
        parts = [p for p in parts if not isinstance(p, ToolCallPart)]
        parts.extend(
            ToolCallPart(tool_call_id=c.get("id") or "", tool_name=c["name"], args=c["args"])
            for c in message.tool_calls
        )
    return AgentMessage(role=role, parts=parts, **_id(message))


def tool_message(
    call_id: str, name: str, output: Any, *, is_error: bool, id: str | None = None
) -> ToolMessage:
    """A runyard tool's result as a ``ToolMessage``: its content the output as text (text as
    it is, else JSON), its ``artifact`` the output itself, marked as runyard's."""
    return ToolMessage(
        output if isinstance(output, str) else json.dumps(output, default=str),
        tool_call_id=call_id,
        name=name,
        status="error" if is_error else "success",
        artifact=output,
        response_metadata={RUNYARD_OUTPUT: True},
        id=id,
    )


_ROLES = {"human": "user", "ai": "assistant", "system": "system"}


def _to_langchain(message: AgentMessage) -> list[BaseMessage]:
    if message.role == "tool":
        return [
            tool_message(r.tool_call_id, r.tool_name, r.result, is_error=r.is_error, id=message.id)
            for r in message.tool_results
        ]
    content = _content([p for p in message.parts if not isinstance(p, ToolCallPart)])
    if message.role == "assistant":
        calls = [
            {"id": c.tool_call_id, "name": c.tool_name, "args": c.args, "type": "tool_call"}
            for c in message.tool_calls
        ]
        return [AIMessage(content=content, tool_calls=calls, id=message.id)]
    if message.role == "system":
        return [SystemMessage(content=content, id=message.id)]
    return [HumanMessage(content=content, id=message.id)]


def _content(parts: Sequence[MessagePart]) -> str | list[str | dict[str, Any]]:
    if all(isinstance(p, TextPart) for p in parts):
        return "".join(p.text for p in parts if isinstance(p, TextPart))
    return list(to_langchain_blocks(parts))


def _parts(blocks: Iterable[Any]) -> list[MessagePart]:
    parts: list[MessagePart] = []
    for block in blocks:
        if block.get("type") == "text" and not block.get("text") and not block.get("annotations"):
            continue
        try:
            parts.extend(from_langchain_blocks([block]))  # a text's citations follow it
        except ValueError:  # a block with no part of its own travels whole
            parts.append(JsonPart(data=dict(block)))
    return parts


def _content_value(message: ToolMessage) -> Any:
    """A tool's output from its message: JSON text as its value; blocks as runyard's parts
    (the texts as strings), as a runyard tool answers with an image or a file."""
    content = message.content
    if isinstance(content, str):
        try:
            return json.loads(content)
        except ValueError:
            return content
    parts = _parts(message.content_blocks)
    if all(isinstance(p, TextPart) for p in parts):
        return "".join(p.text for p in parts if isinstance(p, TextPart))
    return [p.text if isinstance(p, TextPart) else p for p in parts]


def _id(message: BaseMessage) -> dict[str, Any]:
    return {"id": message.id} if message.id else {}
