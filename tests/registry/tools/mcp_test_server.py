"""A small MCP server for the ``mcp`` tool tests, built with the ``mcp`` package's ``MCPServer``.

Run as ``python mcp_test_server.py stdio VARIANT`` (speaks MCP on stdin/stdout) or
``python mcp_test_server.py http VARIANT PORT`` (streamable HTTP on 127.0.0.1:PORT/mcp).
Variant ``v1`` offers add, greet, refuse, env_value, header, hang and pid; ``v2`` drops greet and adds
multiply, as a server that came back with other tools after a restart.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError


def server(variant: str) -> MCPServer:
    app: MCPServer = MCPServer("runyard-test", log_level="WARNING")

    @app.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @app.tool(structured_output=False)
    def refuse(reason: str) -> str:
        """Always fails, with the reason given."""
        raise ToolError(f"refused: {reason}")

    @app.tool(structured_output=False)
    def env_value(name: str) -> str:
        """The value of an environment variable of the server, or <unset>."""
        return os.environ.get(name, "<unset>")

    @app.tool(structured_output=False)
    async def hang() -> str:
        """Never answers."""
        await anyio.sleep_forever()
        return "unreachable"

    @app.tool(structured_output=False)
    def pid() -> str:
        """The server's process id."""
        return str(os.getpid())

    @app.tool(structured_output=False)
    def header(name: str, ctx: Context) -> str:
        """The value of a header of the HTTP request that made this call, or <unset>."""
        request = ctx.request_context.request
        return "<not http>" if request is None else request.headers.get(name, "<unset>")

    if variant == "v1":

        @app.tool(structured_output=False)
        def greet(name: str) -> str:
            """Greet someone by name."""
            return f"Hello, {name}!"

    else:

        @app.tool()
        def multiply(a: int, b: int) -> int:
            """Multiply two integers."""
            return a * b

    return app


if __name__ == "__main__":
    transport, variant = sys.argv[1], sys.argv[2]
    app = server(variant)
    if transport == "stdio":
        app.run()
    else:
        port = int(sys.argv[3])
        anyio.run(lambda: app.run_streamable_http_async(host="127.0.0.1", port=port))
