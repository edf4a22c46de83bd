"""Wrapping a tool's call in code that runs around it, keeping everything else about the tool.

The wrapped tool keeps its name, schema, approval policy and metadata; only what happens when it
runs changes. Toolkit dispatch and the execution context's call binding are such wrappers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from runyard.tools import Tool, ToolContext

__all__ = ["Around", "CallNext", "wrap_call"]

CallNext = Callable[[dict[str, Any], ToolContext], Awaitable[Any]]
"""Runs the wrapped tool with validated arguments and the call's context."""

Around = Callable[[dict[str, Any], ToolContext, CallNext], Awaitable[Any]]
"""Code around a call: gets the arguments, the context and the way to run the tool itself."""

# Not a valid argument name in any JSON Schema a model writes, so it never collides with one.
_CONTEXT = "__runyard_tool_context__"


def wrap_call(tool: Tool, around: Around) -> Tool:
    """``tool`` whose calls go through ``around``."""

    async def wrapped(**arguments: Any) -> Any:
        ctx: ToolContext = arguments.pop(_CONTEXT)
        return await around(arguments, ctx, tool.call)

    return replace(tool, function=wrapped, context_param=_CONTEXT)
