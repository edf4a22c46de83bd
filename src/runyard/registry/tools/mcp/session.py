"""``McpSession``: one open connection to an MCP server, listed once, owned by a task of its own.

The ``mcp`` client keeps a connection inside task groups that the task which opened it must
also close, and a transport that fails (a refused HTTP request) cancels that task. So each
session has an owner task that opens the client, hands it over and waits to be told to close
it; calls are made from other tasks and race the owner, so a call never hangs on a connection
that is gone. Everything here runs on the connections' own loop (``LoopThread``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager, suppress
from typing import TYPE_CHECKING, Any, TypeVar

import httpx2

from runyard.errors import ToolError
from runyard.registry.tools.mcp.parameters import HttpServer, McpServer

if TYPE_CHECKING:
    from mcp import Client
    from mcp.types import CallToolResult, Tool

__all__ = ["ConnectionLostError", "McpSession", "McpUnavailableError", "describe"]

T = TypeVar("T")

# Bounds the tools/list walk, so a server whose pages never end cannot hang a listing.
_MAX_PAGES = 100
# The stdio transport's own shutdown is bounded (about six seconds at worst); this is a backstop.
_CLOSE_TIMEOUT_S = 15.0


class McpUnavailableError(ToolError):
    """The server could not be reached, or did not finish the handshake and listing in time."""


class ConnectionLostError(ToolError):
    """The connection broke during a request; whether the server ran it is unknown."""


class McpSession:
    """An open, listed connection to ``server``; ``alive`` until it breaks or is closed."""

    def __init__(self, server: McpServer) -> None:
        self.server = server
        self.tools: tuple[Tool, ...] = ()
        """The server's tools, listed once when the session opened."""
        self.failure: BaseException | None = None
        self._client: Client | None = None
        self._broken = False
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._owner = asyncio.create_task(self._own(), name=f"mcp {describe(server)}")

    @classmethod
    async def open(cls, server: McpServer) -> McpSession:
        """A connected session with the server's tools; ``McpUnavailableError`` when the server
        cannot be reached or does not answer within ``connect_timeout_s``."""
        session = cls(server)
        try:
            async with asyncio.timeout(server.connect_timeout_s):
                await session._opened()
                session.tools = tuple(await session._list_tools())
        except BaseException as exc:
            # Cancelled too: a half-open connection must not outlive the attempt.
            await session.close()
            if isinstance(exc, TimeoutError | ToolError):
                raise _unavailable(server, exc) from exc
            raise
        return session

    @property
    def alive(self) -> bool:
        return not (self._broken or self._owner.done())

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        """The server's result; a ``ToolError`` for a timeout or an MCP error, a
        ``ConnectionLostError`` when the connection broke."""
        limit = self.server.call_timeout_s
        try:
            async with asyncio.timeout(limit):
                return await self._raced(self._connected().call_tool(name, arguments))
        except TimeoutError:
            raise ToolError(
                f"MCP server {describe(self.server)} did not answer within {limit:g}s"
            ) from None

    async def close(self) -> None:
        """Close the connection: the server process stops, the HTTP session ends."""
        self._stop.set()
        with suppress(TimeoutError):
            async with asyncio.timeout(_CLOSE_TIMEOUT_S):
                await asyncio.shield(self._owner)
        await _cancelled(self._owner)

    async def _own(self) -> None:
        try:
            async with _connected_client(self.server) as client:
                self._client = client
                self._ready.set()
                await self._stop.wait()
        except Exception as exc:  # the transport's failure, kept for the calls that see it
            self.failure = exc

    async def _opened(self) -> None:
        ready = asyncio.ensure_future(self._ready.wait())
        try:
            await asyncio.wait({ready, self._owner}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            await _cancelled(ready)
        if not self._ready.is_set():
            raise ToolError(_reason(self.failure) if self.failure else "it closed")

    async def _list_tools(self) -> list[Tool]:
        tools: list[Tool] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page = await self._raced(self._connected().list_tools(cursor=cursor))
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools

    def _connected(self) -> Client:
        if self._client is None:
            raise ToolError(f"MCP server {describe(self.server)} is not connected")
        return self._client

    async def _raced(self, request: Awaitable[T]) -> T:
        """``request``'s result, unless the connection breaks first."""
        call = asyncio.ensure_future(request)
        try:
            await asyncio.wait({call, self._owner}, return_when=asyncio.FIRST_COMPLETED)
            if call.done():
                return self._result(call)
        finally:
            await _cancelled(call)
        raise self._lost(_reason(self.failure) if self.failure else "it closed")

    def _result(self, call: asyncio.Future[T]) -> T:
        from mcp.shared.exceptions import MCPError
        from mcp.types.jsonrpc import CONNECTION_CLOSED, REQUEST_TIMEOUT

        try:
            return call.result()
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED or exc.message == "Session terminated":
                raise self._lost(exc.message) from exc
            if exc.code == REQUEST_TIMEOUT:
                raise ToolError(
                    f"MCP server {describe(self.server)} timed out: {exc.message}"
                ) from exc
            raise ToolError(
                f"MCP server {describe(self.server)} refused the request: {exc.message}"
            ) from exc

    def _lost(self, reason: str) -> ConnectionLostError:
        self._broken = True
        return ConnectionLostError(
            f"the connection to MCP server {describe(self.server)} was lost ({reason}); "
            "the next call connects again"
        )


@asynccontextmanager
async def _connected_client(server: McpServer) -> AsyncIterator[Client]:
    """An entered ``mcp`` client for ``server``, with no response cache (a listing is ours)."""
    # Imported here, not at the top: the mcp package costs seconds at import, and a process
    # whose catalog names no mcp tool never connects.
    from mcp import Client, StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client

    if isinstance(server, HttpServer):
        # trust_env=False: no proxy or certificate setting of the environment applies.
        timeout = httpx2.Timeout(server.connect_timeout_s, read=None)
        async with httpx2.AsyncClient(
            headers=server.headers, timeout=timeout, trust_env=False
        ) as http:
            transport = streamable_http_client(server.url, http_client=http)
            async with Client(transport, cache=None) as client:
                yield client
        return
    process = StdioServerParameters(
        command=server.command, args=list(server.args), env=dict(server.env), cwd=server.cwd
    )
    async with Client(process, cache=None) as client:
        yield client


def _unavailable(server: McpServer, exc: TimeoutError | ToolError) -> McpUnavailableError:
    if isinstance(exc, TimeoutError):
        limit = server.connect_timeout_s
        return McpUnavailableError(
            f"MCP server {describe(server)} did not answer within {limit:g}s"
        )
    return McpUnavailableError(f"MCP server {describe(server)} is unavailable: {exc}")


def describe(server: McpServer) -> str:
    """How errors name the server: its URL without credentials or query, or its command."""
    if isinstance(server, HttpServer):
        url = httpx2.URL(server.url)
        return str(url.copy_with(userinfo=b"", query=None, fragment=None))
    return repr(server.command)


def _reason(exc: BaseException) -> str:
    """The innermost failures of ``exc`` (task groups wrap a transport's error in groups)."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_reason(inner) for inner in exc.exceptions)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


async def _cancelled(task: asyncio.Future[Any]) -> None:
    """Cancel ``task`` and wait for it to end, without swallowing a cancellation of our own."""
    task.cancel()
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()  # retrieved here, so asyncio does not report it as lost
