"""The MCP face (``/mcp``) on a real server, through the ``mcp`` package's own client over
streamable HTTP, in both of its protocol eras (2026-07-28, what the client negotiates by itself,
and the 2025 handshake MCP hosts speak): the agents listed as tools (per tenant, by API key), a
call that runs an agent with a tool call and returns its answer, progress notifications, an
approval asked as an elicitation (accepted, declined) or, for a client that cannot be asked,
named in the result, a cancelled call that cancels its run, a failed run, an unknown tool, and
401 without a key. The same runs are on the thread's ``/v1`` event log."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from faces_server import serving, thread_events
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, ElicitRequestParams, ElicitResult, TextContent

from runyard.service.api_keys import issue_api_key
from runyard.storage import open_store

ERAS = ["auto", "legacy"]
"""``auto``: the client's default, 2026-07-28 against this server; ``legacy``: the handshake."""

_CATALOG = """\
kind: agent
id: assistant
description: The shared assistant.
model: runyard:demo
instructions: Answer briefly.
tools: [calculator, save_note]
---
kind: agent
id: ledger
tenant: acme
description: Acme's bookkeeper.
model: runyard:demo
instructions: Add up expenses.
tools: [calculator]
---
kind: agent
id: helper.v2
tenant: globex
model: runyard:demo
instructions: Help Globex.
tools: []
"""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("mcp")) as url:
        yield url


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """A server with RUNYARD_AUTH=keys and a catalog with tenants' own agents; a key per
    tenant."""
    tmp = tmp_path_factory.mktemp("mcp-keys")
    (tmp / "catalog").mkdir()
    (tmp / "catalog" / "agents.yaml").write_text(_CATALOG)
    keys = asyncio.run(_issue_keys(f"sqlite:///{tmp / 'runyard.db'}"))
    with serving(tmp, auth="keys", catalog_dir=str(tmp / "catalog")) as url:
        yield url, keys


async def _issue_keys(url: str) -> dict[str, str]:
    store = await open_store(url)
    try:
        return {
            tenant: (await issue_api_key(store, tenant_id=tenant, user_id="u")).token
            for tenant in ("acme", "globex")
        }
    finally:
        await store.close()


@asynccontextmanager
async def connected(base: str, mode: str = "auto", key: str | None = None, **options: Any) -> AsyncIterator[Client]:
    headers = {} if key is None else {"Authorization": f"Bearer {key}"}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=None)) as http:
        transport = streamable_http_client(f"{base}/mcp", http_client=http)
        async with Client(transport, mode=mode, cache=None, **options) as client:  # type: ignore[arg-type]
            yield client


def text(result: CallToolResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


async def logged(base: str, result: CallToolResult) -> list[dict[str, Any]]:
    about = result.structured_content or {}
    return await asyncio.to_thread(thread_events, base, about["threadId"], about["runId"])


@pytest.mark.parametrize("mode", ERAS)
async def test_the_agents_are_tools_and_a_call_runs_one(base: str, mode: str) -> None:
    async with connected(base, mode) as client:
        tools = (await client.list_tools()).tools
        (tool,) = tools
        assert tool.name == "assistant"
        assert tool.input_schema["required"] == ["message"]
        assert set(tool.input_schema["properties"]) == {"message", "threadId"}

        notes: list[str] = []

        async def progress(value: float, total: float | None, message: str | None) -> None:
            notes.append(message or "")

        result = await client.call_tool(
            "assistant",
            {"message": '/tool calculator {"expression": "2+3*4"}'},
            progress_callback=progress,
        )

    assert not result.is_error, text(result)
    assert "14" in text(result)
    about = result.structured_content
    assert about is not None and about["status"] == "completed"
    assert about["usage"]["totalTokens"] > 0
    assert notes[:2] == ["calling calculator", "calculator done"]
    events = await logged(base, result)
    assert [e["type"] for e in events if e["type"] != "text-delta"] == [
        "run-start",
        "tool-call",
        "tool-result",
        "run-finish",
    ]
