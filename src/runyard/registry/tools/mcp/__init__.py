"""The ``mcp`` tool factory: the tools of an MCP server, over stdio or streamable HTTP.

``McpFactory`` builds a toolkit from a server's listing; ``McpConnections`` (kept in
``ToolDependencies``) holds one connection per server, listed once per connection and listed
again when a dropped connection is re-established. docs/tools.md, ``mcp``.
"""

from runyard.registry.tools.mcp.connection import McpConnection
from runyard.registry.tools.mcp.connections import MCP_CONNECTIONS, McpConnections
from runyard.registry.tools.mcp.factory import McpFactory, McpToolkit
from runyard.registry.tools.mcp.parameters import (
    HttpServer,
    McpParameters,
    McpServer,
    StdioServer,
    parse_parameters,
)
from runyard.registry.tools.mcp.results import tool_output
from runyard.registry.tools.mcp.session import (
    ConnectionLostError,
    McpSession,
    McpUnavailableError,
)

__all__ = [
    "MCP_CONNECTIONS",
    "ConnectionLostError",
    "HttpServer",
    "McpConnection",
    "McpConnections",
    "McpFactory",
    "McpParameters",
    "McpServer",
    "McpSession",
    "McpToolkit",
    "McpUnavailableError",
    "StdioServer",
    "parse_parameters",
    "tool_output",
]
