"""The ``mcp`` package's own client against a server's ``/mcp``, as the MCP face tests use it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, ElicitRequestParams, ElicitResult, TextContent

__all__ = ["approving", "connected", "text"]


@asynccontextmanager
async def connected(
    base: str, mode: str = "auto", key: str | None = None, **options: Any
) -> AsyncIterator[Client]:
    """A client of ``base``'s MCP face in protocol era ``mode`` (``auto`` or ``legacy``)."""
    headers = {} if key is None else {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=None)) as http:
        transport = streamable_http_client(f"{base}/mcp", http_client=http)
        async with Client(transport, mode=mode, cache=None, **options) as client:
            yield client


def text(result: CallToolResult) -> str:
    """The text of a tool call's result."""
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


def approving(action: str, asked: list[str]) -> Any:
    """An elicitation callback that answers every question with ``action``."""

    async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action=action, content={} if action == "accept" else None)

    return answer
