"""Toolkits: one factory, several tools, and the executor every toolkit call goes through.

A toolkit lists its tools when asked (``get_tools``), so a toolkit backed by a remote server can
change its list (an MCP server after a reconnect). The agent is offered the granted tools the
toolkit had when it was built; each call is then routed through ``ToolkitExecutor``, which looks
the tool up in the toolkit's *current* list: single tools are run directly, and a name the
toolkit no longer has, or that the agent was not granted, is a clear tool error the model reads
(the seed's toolkit executor, after n8n's ``ToolExecutor``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from runyard.errors import ConfigurationError, ToolError
from runyard.registry.tools.wrapping import Around, CallNext, wrap_call
from runyard.tools import Tool, ToolContext

__all__ = [
    "StaticToolkit",
    "Toolkit",
    "ToolkitExecutor",
    "ToolExecutionError",
]


class Toolkit(Protocol):
    """Several tools from one source."""

    @property
    def name(self) -> str:
        """What errors call the toolkit."""
        ...

    def get_tools(self) -> Sequence[Tool]:
        """The tools the toolkit offers now."""
        ...


@dataclass(frozen=True, slots=True)
class StaticToolkit:
    """A toolkit whose tools are fixed when it is made."""

    name: str
    tools: Sequence[Tool]

    def get_tools(self) -> Sequence[Tool]:
        return self.tools


class ToolExecutionError(ToolError):
    """A toolkit call failed: the tool is not granted, or it raised; names the tool."""

    def __init__(self, tool_name: str, problem: str) -> None:
        super().__init__(f'Tool "{tool_name}" {problem}')
        self.tool_name = tool_name
        self.problem = problem


class ToolkitExecutor:
    """Runs calls of ``toolkit``'s tools, limited to ``granted`` (None: every tool it has)."""

    def __init__(self, toolkit: Toolkit, granted: Collection[str] | None = None) -> None:
        self.toolkit = toolkit
        self.granted = None if granted is None else frozenset(granted)
        if self.granted is not None:
            _check_grant(toolkit, self.granted)

    def offered_tools(self) -> list[Tool]:
        """The granted tools as the agent sees them: each call goes through ``execute``."""
        return [wrap_call(tool, self._dispatcher(tool.name)) for tool in self._granted_tools()]

    async def execute(self, tool_name: str, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        """Run ``tool_name`` of the toolkit as it is now; any failure is a ``ToolExecutionError``."""
        tool = self._find(tool_name)
        try:
            return await tool.call(arguments, ctx)
        except Exception as exc:
            raise ToolExecutionError(tool_name, f"failed: {exc}") from exc

    def _dispatcher(self, tool_name: str) -> Around:
        async def dispatch(arguments: dict[str, Any], ctx: ToolContext, _: CallNext) -> Any:
            # The tool the agent was offered may be gone from the toolkit: ask the toolkit.
            return await self.execute(tool_name, arguments, ctx)

        return dispatch

    def _granted_tools(self) -> list[Tool]:
        tools = self.toolkit.get_tools()
        return [t for t in tools if self.granted is None or t.name in self.granted]

    def _find(self, tool_name: str) -> Tool:
        for tool in self._granted_tools():
            if tool.name == tool_name:
                return tool
        raise ToolExecutionError(tool_name, f'is not granted in toolkit "{self.toolkit.name}"')


def _check_grant(toolkit: Toolkit, granted: frozenset[str]) -> None:
    names = {tool.name for tool in toolkit.get_tools()}
    unknown = sorted(granted - names)
    if unknown:
        raise ConfigurationError(
            f"toolkit {toolkit.name!r} has no tool {', '.join(map(repr, unknown))}"
            f" (it has {', '.join(sorted(names)) or 'none'})"
        )
