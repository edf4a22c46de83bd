"""``MiddlewareStack``: an agent's ordered middleware composed around the loop (an onion).

Model calls: ``before_model`` runs first to last, ``after_model`` last to first, so the first
listed middleware sees the request first and the response last. Every model call an agent makes
(the loop's turns, a thread's title) goes through ``call_model``, so what one layer guarantees
about what a model reads (PII redacted) holds for all of them. Tool calls: the first listed
wraps all the others. Streamed deltas pass through the filters in list order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from runyard.errors import ConfigurationError
from runyard.models import ModelTurn
from runyard.runtime.middleware.base import (
    CallTool,
    DeltaChannel,
    DeltaFilter,
    Middleware,
    ModelRequest,
    ToolCallRequest,
)
from runyard.tools import Tool, invoke_tool

__all__ = ["NO_MIDDLEWARE", "DeltaRelay", "MiddlewareStack", "SendModelRequest", "ToolCallDone"]

SendModelRequest = Callable[[ModelRequest], Awaitable[ModelTurn]]
"""Sends the request the layers passed on to the model and returns its (unfiltered) turn."""


@dataclass(frozen=True, slots=True)
class ToolCallDone:
    """What a tool call through the stack returned, and the tool that really ran (a middleware
    may have swapped it, e.g. for a copy behind the approval gate): its resume schema and output
    shaping apply to the result."""

    raw: Any
    tool: Tool


class MiddlewareStack:
    """The middleware of one agent, applied in the documented order; empty = no change."""

    def __init__(self, middleware: Sequence[Middleware] = ()) -> None:
        for item in middleware:
            if not isinstance(item, Middleware):
                raise ConfigurationError(
                    f"middleware must subclass runyard.Middleware, not {type(item).__name__}"
                )
        self.middleware = tuple(middleware)

    async def call_model(self, request: ModelRequest, send: SendModelRequest) -> ModelTurn:
        """One model call through every layer: the request each ``before_model`` passes on is
        what ``send`` sends, and the turn comes back through each ``after_model``."""
        if not self.middleware:
            return await send(request)
        for item in self.middleware:
            request = await item.before_model(request)
        turn = await send(request)
        for item in reversed(self.middleware):
            turn = await item.after_model(turn)
        return turn

    async def call_tool(self, request: ToolCallRequest) -> ToolCallDone:
        """Run the call through every ``wrap_tool_call``; the innermost runs the tool's policies
        (``invoke_tool``: the approval gate, then the function)."""
        if not self.middleware:
            # No layer can swap the tool: skip building the chain, measurable on every call.
            return ToolCallDone(
                await invoke_tool(request.tool, request.args, request.context), request.tool
            )
        reached: list[Tool] = []

        async def innermost(final: ToolCallRequest) -> Any:
            reached.append(final.tool)
            return await invoke_tool(final.tool, final.args, final.context)

        chain: CallTool = innermost
        for item in reversed(self.middleware):
            chain = partial(item.wrap_tool_call, call_next=chain)
        raw = await chain(request)
        return ToolCallDone(raw, reached[-1] if reached else request.tool)

    def delta_relay(self) -> DeltaRelay:
        """The delta filters of one streamed model call."""
        return DeltaRelay(
            {
                channel: [f for f in (m.delta_filter(channel) for m in self.middleware) if f]
                for channel in ("text", "reasoning")
            }
        )


class DeltaRelay:
    """One model call's deltas through its filters, keeping text and reasoning in stream order:
    a delta of one channel first flushes what the other channel held back."""

    def __init__(self, filters: dict[DeltaChannel, list[DeltaFilter]]) -> None:
        self._filters = filters
        self._open: DeltaChannel | None = None

    def push(self, channel: DeltaChannel, delta: str) -> list[tuple[DeltaChannel, str]]:
        """The pieces to send now for ``delta``, in order (none when everything is held)."""
        sent = self.flush() if self._open not in (None, channel) else []
        self._open = channel
        for item in self._filters[channel]:
            delta = item.push(delta)
        return [*sent, (channel, delta)] if delta else sent

    def flush(self) -> list[tuple[DeltaChannel, str]]:
        """Whatever the open channel's filters still hold (at the end, or before a tool call)."""
        channel, self._open = self._open, None
        if channel is None:
            return []
        held = ""
        for item in self._filters[channel]:
            held = (item.push(held) if held else "") + item.flush()
        return [(channel, held)] if held else []


NO_MIDDLEWARE = MiddlewareStack()
"""The stack of an agent without middleware: every hook passes through."""
