"""``Middleware``: hooks around the loop — each model call, each tool call, each streamed delta.

A middleware overrides only the hooks it needs; the defaults pass everything through unchanged.
An agent's middleware is an ordered list (``Agent(middleware=[...])``), composed by
``MiddlewareStack``: the first listed is the outermost layer of every model call and tool call,
and streamed deltas pass through the list in order (docs/runtime.md, "Middleware").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic_ai.models import Model

from runyard.messages import AgentMessage
from runyard.models import ModelTurn
from runyard.tools import Tool, ToolContext

__all__ = [
    "CallTool",
    "DeltaChannel",
    "DeltaFilter",
    "Middleware",
    "ModelRequest",
    "ToolCallRequest",
]

DeltaChannel = Literal["text", "reasoning"]
"""Which streamed deltas a filter sees: the answer's text, or the model's visible reasoning."""


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """What one model call is about to send; ``before_model`` may return a changed copy.

    ``model`` is the agent's model, for a middleware that needs one of its own calls
    (summarisation); swapping it here does not change which model answers.
    """

    messages: Sequence[AgentMessage]
    instructions: str
    model: Model


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """One tool call, its arguments validated; ``context.resume_data`` is set on a resume.

    Arguments a middleware passes on are not validated again: a middleware that changes them
    keeps them valid for ``tool``.
    """

    tool: Tool
    args: dict[str, Any]
    context: ToolContext


CallTool = Callable[[ToolCallRequest], Awaitable[Any]]
"""The rest of the chain: the next middleware, the innermost one runs the tool. It returns the
tool's raw result or a ``Suspend``; a ``ToolError`` it raises becomes the error the model reads."""


class DeltaFilter(Protocol):
    """Rewrites one model call's stream of deltas on one channel, before they leave the process.

    ``push`` gets each delta and returns the text to send on now, which may be shorter (text
    held back until it is safe) or empty; ``flush`` returns whatever is still held when the
    model's stream ends (or the channel pauses for the other one). The concatenation of what a
    filter returns is what the client sees.
    """

    def push(self, delta: str) -> str: ...

    def flush(self) -> str: ...


class Middleware:
    """The base of every middleware: each hook is optional and passes through by default."""

    async def before_model(self, request: ModelRequest) -> ModelRequest:
        """Before each model call: return the request to send (rewrite messages, instructions)."""
        return request

    async def after_model(self, turn: ModelTurn) -> ModelTurn:
        """After each model call: see, or return a changed, response before the loop records it
        (the recorded message is what memory stores and ``generate`` returns)."""
        return turn

    async def wrap_tool_call(self, request: ToolCallRequest, call_next: CallTool) -> Any:
        """Around each tool call: call ``call_next`` (with a changed request, or not at all to
        answer in the tool's place), raise ``ToolError`` to refuse, or return a ``Suspend``."""
        return await call_next(request)

    def delta_filter(self, channel: DeltaChannel) -> DeltaFilter | None:
        """A fresh filter for one streamed model call's ``channel`` deltas, or None to leave
        them alone. Called once per model call, so a filter may keep state."""
        return None
