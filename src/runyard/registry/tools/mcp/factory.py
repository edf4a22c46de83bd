"""``mcp``: a tool factory whose toolkit is the tools of an MCP server.

Each tool the server lists becomes a runyard ``Tool`` with the server's name, description and
input schema; a call goes to the server over the shared connection (``McpConnection``) and its
result comes back as the tool's output (``tool_output``). The tools are listed when the spec is
built, because the agent is offered them then: a server that cannot be reached at build time
is a ``ConfigurationError``; later, a server that is down is a tool error the model reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from runyard.errors import ConfigurationError
from runyard.registry.tools.build_context import BuildContext
from runyard.registry.tools.configuration import ToolConfiguration
from runyard.registry.tools.dependencies import ToolDependencies
from runyard.registry.tools.execution_context import ExecutionContext
from runyard.registry.tools.mcp.connection import McpConnection
from runyard.registry.tools.mcp.connections import McpConnections
from runyard.registry.tools.mcp.parameters import parse_parameters
from runyard.registry.tools.mcp.results import tool_output
from runyard.registry.tools.mcp.session import McpUnavailableError
from runyard.tools import Tool

if TYPE_CHECKING:
    from mcp.types import Tool as McpTool

__all__ = ["McpFactory", "McpToolkit"]


class McpFactory:
    """Builds the toolkit of one MCP server, limited to the spec's ``tools`` when it names some."""

    def build(
        self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
    ) -> ToolConfiguration:
        server = parse_parameters(context.name, dict(context.parameters))
        connection = McpConnections.of(deps).connection(server)
        try:
            connection.list_blocking()
        except McpUnavailableError as exc:
            raise ConfigurationError(f"tool {context.name!r} (mcp): {exc}") from exc
        toolkit = McpToolkit(context.name, connection, server.tools)
        return ToolConfiguration.from_toolkit(toolkit, context)


class McpToolkit:
    """The tools ``connection``'s server lists now, limited to ``offered`` (None: all)."""

    def __init__(
        self, name: str, connection: McpConnection, offered: Sequence[str] | None = None
    ) -> None:
        self.name = name
        self._connection = connection
        self._offered = None if offered is None else frozenset(offered)
        self._built: tuple[tuple[McpTool, ...], list[Tool]] = ((), [])
        if self._offered is not None:
            self._check_offered(self._offered)

    def get_tools(self) -> Sequence[Tool]:
        listing = self._connection.tools
        built_from, tools = self._built
        if listing is not built_from:  # a new listing, after a reconnect: build its tools once
            tools = [self._tool(definition) for definition in listing if self._offers(definition)]
            self._built = (listing, tools)
        return tools

    def _offers(self, definition: McpTool) -> bool:
        return self._offered is None or definition.name in self._offered

    def _check_offered(self, offered: frozenset[str]) -> None:
        listed = {definition.name for definition in self._connection.tools}
        unknown = sorted(offered - listed)
        if unknown:
            raise ConfigurationError(
                f"tool {self.name!r} (mcp): tools: the server has no tool "
                f"{', '.join(map(repr, unknown))} (it has {', '.join(sorted(listed)) or 'none'})"
            )

    def _tool(self, definition: McpTool) -> Tool:
        # Loaded when an MCP server's tool is built (``Tool.from_function`` checks its schema
        # with it), not when the catalog's factories are: ``runyard serve`` without one never
        # pays for it (docs/benchmarks.md, cold start).
        import jsonschema

        connection, name = self._connection, definition.name

        async def call_mcp_tool(**arguments: Any) -> Any:
            return tool_output(await connection.call(name, arguments))

        try:
            return Tool.from_function(
                call_mcp_tool,
                name=name,
                description=definition.description or definition.title or name,
                parameters=definition.input_schema,
            )
        except jsonschema.SchemaError as exc:
            raise ConfigurationError(
                f"tool {self.name!r} (mcp): the server's tool {name!r} has an invalid input "
                f"schema: {exc.message}"
            ) from exc
