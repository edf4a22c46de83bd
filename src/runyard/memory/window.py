"""The recent window: which stored messages of the thread reach the model before a turn."""

from __future__ import annotations

from collections.abc import Sequence

from runyard.messages import AgentMessage, CustomMessage

__all__ = ["merge_history", "trim_leading_tool_results"]

Message = AgentMessage | CustomMessage


def trim_leading_tool_results(messages: Sequence[Message]) -> list[Message]:
    """Drop tool results at the front whose calls fell outside the window.

    A window cut by message count can start between a call and its result; a result without
    its call means nothing to a model (and providers reject it).
    """
    start = 0
    while start < len(messages):
        first = messages[start]
        if isinstance(first, AgentMessage) and first.role != "tool":
            break
        start += 1
    kept = [m for m in messages[:start] if isinstance(m, CustomMessage)]
    return kept + list(messages[start:])


def merge_history(window: Sequence[Message], recalled: Sequence[Message]) -> list[Message]:
    """The window plus recalled messages it does not already hold, ordered by time."""
    seen = {m.id for m in window}
    extra = [m for m in recalled if m.id not in seen]
    return sorted([*extra, *window], key=lambda m: m.created_at)
