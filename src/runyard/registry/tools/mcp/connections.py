"""``McpConnections``: the MCP connections one ``ToolDependencies`` shares, and their shutdown.

One connection per server (the same transport settings and timeouts), however many specs and
agents name it. The connections run on an event loop of their own (``LoopThread``), started
with the first connection; closing the dependencies closes every connection (stopping stdio
servers) and then that loop.
"""

from __future__ import annotations

import threading

from runyard.registry.tools.dependencies import ToolDependencies
from runyard.registry.tools.mcp.connection import McpConnection
from runyard.registry.tools.mcp.loop_thread import LoopThread
from runyard.registry.tools.mcp.parameters import McpServer, server_key

__all__ = ["MCP_CONNECTIONS", "McpConnections"]

MCP_CONNECTIONS = "mcp_connections"
"""The name the connections are registered under in ``ToolDependencies``."""


class McpConnections:
    """MCP connections by server; ``aclose`` closes them all."""

    def __init__(self) -> None:
        self._thread: LoopThread | None = None
        self._connections: dict[str, McpConnection] = {}
        self._guard = threading.Lock()

    @classmethod
    def of(cls, deps: ToolDependencies) -> McpConnections:
        """The connections ``deps`` shares, registered (and closed with it) on first use."""
        if MCP_CONNECTIONS not in deps:
            connections = cls()
            deps.register(MCP_CONNECTIONS, connections, close=connections.aclose)
        found: McpConnections = deps.get(MCP_CONNECTIONS)
        return found

    def connection(self, server: McpServer) -> McpConnection:
        """The connection to ``server`` (not opened yet when it is new)."""
        key = server_key(server)
        with self._guard:
            if self._thread is None:
                self._thread = LoopThread("runyard-mcp")
            found = self._connections.get(key)
            if found is None:
                found = self._connections[key] = McpConnection(server, self._thread)
            return found

    async def aclose(self) -> None:
        """Close every connection, then stop their loop."""
        with self._guard:
            thread, self._thread = self._thread, None
            connections, self._connections = list(self._connections.values()), {}
        if thread is None:
            return
        for connection in connections:
            await thread.run(connection.aclose())
        await thread.stop()
