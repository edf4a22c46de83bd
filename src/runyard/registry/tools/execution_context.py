"""``ExecutionContext``: what a tool factory's tools may ask of the run while one of them runs.

A factory gets its ``ExecutionContext`` when it builds, but tools are built once and called many
times, concurrently too: the context therefore answers for *the call in progress*. The registry
binds every built tool to it (``bind``), so during a call ``emit_progress`` reaches that call's
progress channel (``ToolContext.progress``, which the service turns into a ``status`` event) and
``get_input_data(0)`` is that call's arguments. The binding is a context variable, so concurrent
calls and sync tools in worker threads each see their own call.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from runyard.errors import ToolError
from runyard.registry.tools.binaries import BinarySource
from runyard.registry.tools.wrapping import CallNext, wrap_call
from runyard.tools import Tool, ToolContext

__all__ = [
    "CallExecutionContext",
    "ExecutionContext",
    "NoCallInProgressError",
    "calling_tool_context",
]


class ExecutionContext(Protocol):
    """The seed's execution helpers, as a tool factory sees them."""

    def get_parameter(self, name: str, *, default: Any | None = None) -> Any:
        """A parameter of the tool's spec, or ``default`` when the spec does not set it."""
        ...

    def get_input_data(self, index: int) -> Mapping[str, Any]:
        """Input item ``index`` of the call in progress: item 0 is its validated arguments."""
        ...

    def get_binary_stream(self, binary_id: str) -> AsyncIterator[bytes]:
        """The chunks of binary ``binary_id`` (``async for chunk in ...``)."""
        ...

    def emit_progress(self, message: str) -> None:
        """Report progress of the call in progress (a ``status`` event on the thread)."""
        ...


class NoCallInProgressError(RuntimeError):
    """A per-call helper was used while none of the context's tools was running."""


@dataclass(frozen=True, slots=True)
class _Call:
    owner: CallExecutionContext
    arguments: Mapping[str, Any]
    context: ToolContext


_CURRENT_CALL: ContextVar[_Call | None] = ContextVar("runyard_current_tool_call", default=None)


class CallExecutionContext:
    """The ``ExecutionContext`` the registry gives a factory: its spec's parameters, its calls."""

    def __init__(self, parameters: Mapping[str, Any], binaries: BinarySource | None) -> None:
        self._parameters = dict(parameters)
        self._binaries = binaries

    def get_parameter(self, name: str, *, default: Any | None = None) -> Any:
        return self._parameters.get(name, default)

    def get_input_data(self, index: int) -> Mapping[str, Any]:
        if index != 0:
            raise IndexError(f"a tool call has one input item (index 0), not {index}")
        return self._call("get_input_data").arguments

    async def get_binary_stream(self, binary_id: str) -> AsyncIterator[bytes]:
        if self._binaries is None:
            raise ToolError("no binary source is configured for tools (ToolDependencies.binaries)")
        async for chunk in self._binaries.open(binary_id):
            yield chunk

    def emit_progress(self, message: str) -> None:
        self._call("emit_progress").context.progress(message)

    def bind(self, tool: Tool) -> Tool:
        """``tool`` whose calls are this context's call in progress while they run."""

        async def bound(arguments: dict[str, Any], ctx: ToolContext, call_next: CallNext) -> Any:
            token = _CURRENT_CALL.set(_Call(self, arguments, ctx))
            try:
                return await call_next(arguments, ctx)
            finally:
                _CURRENT_CALL.reset(token)

        return wrap_call(tool, bound)

    def _call(self, helper: str) -> _Call:
        call = _CURRENT_CALL.get()
        if call is None or call.owner is not self:
            raise NoCallInProgressError(
                f"ExecutionContext.{helper} works only while one of the tools built with it runs"
            )
        return call


def calling_tool_context() -> ToolContext | None:
    """The ``ToolContext`` of the factory-built tool call in progress here, if any: whose run
    it is (tenant, user, thread) for a ``BinarySource`` that reads on the caller's behalf."""
    call = _CURRENT_CALL.get()
    return None if call is None else call.context
