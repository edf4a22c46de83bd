"""``McpConnection``: the one connection to an MCP server that every spec naming it shares.

It opens on first use and lists the server's tools then, once; it stays open while it works.
When a request finds it broken (the server restarted, its process exited), the request fails
with a clear tool error and the connection is dropped; the next request opens a new one and
lists the tools again, so a server that came back with other tools is seen as it is now. A call
is never sent twice: whether a request the broken connection carried ran is unknown.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from runyard.errors import ToolError
from runyard.registry.tools.mcp.loop_thread import LoopThread
from runyard.registry.tools.mcp.parameters import McpServer
from runyard.registry.tools.mcp.session import ConnectionLostError, McpSession, describe

if TYPE_CHECKING:
    from mcp.types import CallToolResult, Tool

__all__ = ["McpConnection"]


class McpConnection:
    """The shared connection to ``server``, living on ``thread``'s loop.

    ``list_blocking`` (for a synchronous build) and ``call`` (from any event loop) may be used
    from any thread; ``tools`` is the latest listing and survives a dropped connection.
    """

    def __init__(self, server: McpServer, thread: LoopThread) -> None:
        self.server = server
        self.listings = 0
        """How often the server's tools were listed: once per connection opened."""
        self._thread = thread
        self._tools: tuple[Tool, ...] = ()
        self._session: McpSession | None = None
        self._lock = asyncio.Lock()

    @property
    def tools(self) -> tuple[Tool, ...]:
        """The server's tools as last listed (empty before the first connection)."""
        return self._tools

    def list_blocking(self) -> tuple[Tool, ...]:
        """Connect unless connected, and return the tools; ``McpUnavailableError`` if it cannot."""
        self._thread.run_blocking(self._open())
        return self._tools

    async def call(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call tool ``name``; every failure is a ``ToolError`` naming the server."""
        return await self._thread.run(self._call(name, arguments))

    async def aclose(self) -> None:
        """Close the connection if open (on the connection's loop)."""
        async with self._lock:
            session, self._session = self._session, None
        if session is not None:
            await session.close()

    async def _call(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        session = await self._open()
        if all(tool.name != name for tool in session.tools):
            raise ToolError(f'MCP server {describe(self.server)} no longer offers tool "{name}"')
        try:
            return await session.call_tool(name, arguments)
        except ConnectionLostError:
            await self._drop(session)
            raise

    async def _open(self) -> McpSession:
        async with self._lock:
            current = self._session
            if current is not None and current.alive:
                return current
            self._session = None
            if current is not None:
                await current.close()
            session = await McpSession.open(self.server)
            self._session, self._tools = session, session.tools
            self.listings += 1
            return session

    async def _drop(self, session: McpSession) -> None:
        async with self._lock:
            if self._session is session:
                self._session = None
        await session.close()
