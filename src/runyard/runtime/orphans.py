"""Stripping tool calls without results (and results without calls) before a model sees them.

Providers reject a transcript in which a tool call has no result; a suspended call, a crashed
run or a trimmed history window all leave such halves behind.
"""

from __future__ import annotations

from collections.abc import Sequence

from runyard.messages import AgentMessage, CustomMessage, ToolCallPart, ToolResultPart

__all__ = ["strip_orphaned_tool_messages"]

Message = AgentMessage | CustomMessage


def strip_orphaned_tool_messages(messages: Sequence[Message]) -> list[Message]:
    """Drop unpaired tool-call and tool-result parts; drop messages left empty. Custom rows stay."""
    calls = _tool_call_ids(messages, ToolCallPart)
    results = _tool_call_ids(messages, ToolResultPart)
    if calls == results:
        return list(messages)
    paired = calls & results
    kept: list[Message] = []
    for message in messages:
        if isinstance(message, CustomMessage):
            kept.append(message)
            continue
        parts = [
            p
            for p in message.parts
            if not isinstance(p, ToolCallPart | ToolResultPart) or p.tool_call_id in paired
        ]
        if len(parts) == len(message.parts):
            kept.append(message)
        elif parts:
            kept.append(message.model_copy(update={"parts": parts}))
    return kept


def _tool_call_ids(
    messages: Sequence[Message], kind: type[ToolCallPart] | type[ToolResultPart]
) -> set[str]:
    """The tool call ids of every ``kind`` part in the agent messages."""
    return {
        part.tool_call_id
        for message in messages
        if isinstance(message, AgentMessage)
        for part in message.parts
        if isinstance(part, kind)
    }
