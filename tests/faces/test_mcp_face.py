"""The MCP face (``/mcp``) on a real server, through the ``mcp`` package's own client over
streamable HTTP, in both of its protocol eras (2026-07-28, what the client negotiates by itself,
and the 2025 handshake MCP hosts speak): the agents listed as tools (per tenant, by API key), a
call that runs an agent with a tool call and returns its answer, progress notifications, an
approval asked as an elicitation (accepted, declined) or, for a client that cannot be asked,
named in the result, a cancelled call that cancels its run, a failed run, an unknown tool, and
401 without a key. The same runs are on the thread's ``/v1`` event log."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from faces_server import PLAN_AND_DELEGATE, running, serving, thread_events
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CallToolResult,
    ElicitResult,
    EmbeddedResource,
    ImageContent,
    InputRequiredResult,
    TextContent,
)
from mcp_client import approving, connected, text

from runyard.models.demo_script import demo_png
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
        assert set(tool.input_schema["properties"]) == {"message", "content", "threadId"}

        notes: list[str] = []

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            notes.append(message or "")

        result = await client.call_tool(
            "assistant",
            {"message": '/tool calculator {"expression": "2+3*4"}'},
            progress_callback=progress,
        )

    assert not result.is_error, text(result)
    assert "14" in text(result)
    about = result.structured_content
    assert about is not None
    assert about["status"] == "completed"
    assert about["usage"]["totalTokens"] > 0
    assert notes[:2] == ["calling calculator", "calculator done"]
    events = await logged(base, result)
    assert [e["type"] for e in events if e["type"] != "text-delta"] == [
        "run-start",
        "tool-call",
        "tool-result",
        "run-finish",
    ]


async def test_sub_agents_and_the_task_list_are_progress_notes(base: str) -> None:
    notes: list[str] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append(message or "")

    async with connected(base) as client:
        result = await client.call_tool(
            "assistant", {"message": PLAN_AND_DELEGATE}, progress_callback=progress
        )

    assert not result.is_error, text(result)
    assert notes[:3] == ["calling plan", "calling delegate", "calling plan"]  # one turn
    sub_agent = [
        "sub-agent adder started",
        "adder: calling calculator",
        "calculator done",
        "sub-agent adder finished",
    ]
    assert [note for note in notes if note in sub_agent] == sub_agent
    assert {"tasks: 0/1 done", "tasks: 1/1 done", "plan done", "delegate done"} <= set(notes)


@pytest.mark.parametrize("mode", ERAS)
async def test_an_approval_accepted_in_an_elicitation_lets_the_tool_run(
    base: str, mode: str
) -> None:
    asked: list[str] = []
    notes: list[str] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append(message or "")

    async with connected(base, mode, elicitation_callback=approving("accept", asked)) as client:
        result = await client.call_tool(
            "assistant",
            {"message": '/tool save_note {"text": "keep"}'},
            progress_callback=progress,
        )

    assert not result.is_error, text(result)
    # In 2026-07-28 the tool's end arrives on the retry, which never saw its call: named all
    # the same.
    assert "save_note done" in notes
    (question,) = asked
    assert "Tool: save_note" in question
    assert '"text": "keep"' in question
    events = await logged(base, result)
    assert [e["type"] for e in events if e["type"] != "text-delta"] == [
        "run-start",
        "tool-call",
        "confirmation-request",
        "tool-result",
        "run-finish",
    ]
    assert events[-1]["payload"]["status"] == "completed"


@pytest.mark.parametrize("mode", ERAS)
async def test_an_approval_declined_in_an_elicitation_denies_the_tool(base: str, mode: str) -> None:
    asked: list[str] = []
    async with connected(base, mode, elicitation_callback=approving("decline", asked)) as client:
        result = await client.call_tool("assistant", {"message": '/tool save_note {"text": "no"}'})

    assert not result.is_error, text(result)
    assert len(asked) == 1
    events = await logged(base, result)
    assert "tool-error" in [e["type"] for e in events]
    assert "tool-result" not in [e["type"] for e in events]


@pytest.mark.parametrize("mode", ERAS)
async def test_a_client_without_elicitation_gets_the_request_to_answer_on_v1(
    base: str, mode: str
) -> None:
    async with connected(base, mode) as client:
        result = await client.call_tool(
            "assistant", {"message": '/tool save_note {"text": "later"}'}
        )

    assert not result.is_error
    about = result.structured_content or {}
    assert about["status"] == "waiting_for_approval"
    (approval,) = about["approvals"]
    assert approval["toolName"] == "save_note"
    request_id = approval["requestId"]
    assert request_id in text(result)
    assert f"/v1/confirm/{request_id}" in text(result)
    assert about["threadId"] in text(result)
    async with connected(base, mode) as client:
        again = await client.call_tool(
            "assistant", {"message": "and now?", "threadId": about["threadId"]}
        )
    assert again.is_error
    assert (again.structured_content or {})["status"] == "run_active"

    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        confirmed = await http.post(f"/v1/confirm/{request_id}", json={"approved": True})
    assert confirmed.status_code == 200, confirmed.text
    events = await logged(base, result)
    assert events[-1]["payload"]["status"] == "completed"
    assert "tool-result" in [e["type"] for e in events]


async def test_the_thread_id_continues_the_conversation(base: str) -> None:
    async with connected(base) as client:
        first = await client.call_tool("assistant", {"message": "hello"})
        thread_id = (first.structured_content or {})["threadId"]
        second = await client.call_tool("assistant", {"message": "again", "threadId": thread_id})

    assert (second.structured_content or {})["threadId"] == thread_id
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        messages = (await http.get(f"/v1/threads/{thread_id}/messages")).json()
    said = json.dumps(messages)
    assert "hello" in said
    assert "again" in said


@pytest.mark.parametrize("mode", ERAS)
async def test_a_cancelled_call_cancels_its_run(base: str, mode: str) -> None:
    started = asyncio.Event()

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    thread_id = f"cancel-{mode}"
    arguments = {
        "message": '/delay 300\n/tool calculator {"expression": "1+1"}',
        "threadId": thread_id,
    }
    async with connected(base, mode) as client:
        call = asyncio.create_task(
            client.call_tool("assistant", arguments, progress_callback=progress)
        )
        await started.wait()  # the run is going: it called its tool
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    finish = (await asyncio.to_thread(thread_events, base, thread_id))[-1]
    assert finish["payload"]["status"] == "cancelled"
    assert finish["payload"]["reason"] == "user_cancelled"


@pytest.mark.parametrize("mode", ERAS)
async def test_a_failed_run_is_an_error_result_with_its_reason(base: str, mode: str) -> None:
    async with connected(base, mode) as client:
        result = await client.call_tool("assistant", {"message": "/fail 500"})

    assert result.is_error
    assert "the run failed" in text(result)
    assert (result.structured_content or {})["status"] == "error"
    events = await logged(base, result)
    assert events[-1]["payload"]["status"] == "error"


@pytest.mark.parametrize("mode", ERAS)
async def test_an_unknown_tool_is_the_protocols_invalid_params_error(base: str, mode: str) -> None:
    async with connected(base, mode) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("no-such-agent", {"message": "hi"})

    assert refused.value.code == -32602
    assert "Unknown tool: no-such-agent" in refused.value.message


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({}, "message"),
        ({"message": "hi", "threadId": "bad id!"}, "threadId"),
        ({"message": "hi", "x": 1}, "x"),
    ],
)
async def test_bad_arguments_are_an_error_result_naming_the_argument(
    base: str, arguments: dict[str, Any], named: str
) -> None:
    async with connected(base, "legacy") as client:
        result = await client.call_tool("assistant", arguments)

    assert result.is_error
    assert named in text(result)


async def test_each_tenants_key_lists_its_own_agents(keyed: tuple[str, dict[str, str]]) -> None:
    url, keys = keyed
    listed = {}
    for tenant, key in keys.items():
        async with connected(url, key=key) as client:
            listed[tenant] = [tool.name for tool in (await client.list_tools()).tools]
    assert listed == {"acme": ["assistant", "ledger"], "globex": ["assistant", "helper.v2"]}

    async with connected(url, "legacy", key=keys["acme"]) as client:
        result = await client.call_tool("ledger", {"message": "hello ledger"})
        with pytest.raises(MCPError):
            await client.call_tool("helper.v2", {"message": "not mine"})
    assert not result.is_error, text(result)
    assert "hello ledger" in text(result)


async def test_an_approval_answers_only_for_the_caller_it_asked(
    keyed: tuple[str, dict[str, str]],
) -> None:
    url, keys = keyed
    accept = approving("accept", [])
    async with connected(url, key=keys["acme"], elicitation_callback=accept) as acme:
        asked = await acme.session.call_tool(
            "assistant", {"message": '/tool save_note {"text": "x"}'}, allow_input_required=True
        )
    assert isinstance(asked, InputRequiredResult)
    assert asked.input_requests is not None
    (request_id,) = asked.input_requests

    async with connected(url, key=keys["globex"], elicitation_callback=accept) as globex:
        result = await globex.session.call_tool(
            "assistant",
            {"message": '/tool save_note {"text": "x"}'},
            input_responses={request_id: ElicitResult(action="accept")},
            request_state=asked.request_state,
        )

    assert result.is_error
    assert (result.structured_content or {})["status"] == "confirmation_not_found"


@pytest.mark.parametrize("key", [None, "ryk_wrong"])
async def test_without_a_valid_key_mcp_answers_401(
    keyed: tuple[str, dict[str, str]], key: str | None
) -> None:
    url, _ = keyed
    headers = {"Accept": "application/json, text/event-stream"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    async with httpx.AsyncClient(timeout=30) as http:
        response = await http.post(f"{url}/mcp", json=body, headers=headers)

    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "unauthenticated"


async def test_a_session_answers_only_the_key_that_opened_it(
    keyed: tuple[str, dict[str, str]],
) -> None:
    url, keys = keyed
    headers = {"Accept": "application/json, text/event-stream"}
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    async with httpx.AsyncClient(timeout=30) as http:
        opened = await http.post(
            f"{url}/mcp",
            json=initialize,
            headers={**headers, "Authorization": f"Bearer {keys['acme']}"},
        )
        session = opened.headers["mcp-session-id"]
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
        other = await http.post(
            f"{url}/mcp",
            json=listing,
            headers={
                **headers,
                "Authorization": f"Bearer {keys['globex']}",
                "Mcp-Session-Id": session,
                "Mcp-Protocol-Version": "2025-06-18",
            },
        )
    assert opened.status_code == 200
    assert other.status_code == 404


@pytest.mark.parametrize("mode", ERAS)
async def test_a_call_running_when_the_server_drains_ends_naming_where_the_run_goes_on(
    tmp_path: Path, mode: str
) -> None:
    started = asyncio.Event()

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    endless = "/delay 50\n" + "word " * 2000  # still writing when any grace is up
    with running(tmp_path, shutdown_grace_seconds=1) as server:
        async with connected(server.url, mode) as client:
            call = asyncio.create_task(
                client.call_tool("assistant", {"message": endless}, progress_callback=progress)
            )
            await started.wait()  # 200 characters of the answer are out
            await server.drain()
            result = await call

    assert result.is_error
    about = result.structured_content or {}
    assert about["status"] == "server_shutdown"
    assert f"/v1/events/{about['threadId']}?lastEventId=" in text(result)


async def test_an_image_argument_reaches_the_agent_and_its_image_is_image_content(
    base: str,
) -> None:
    png = base64.b64encode(demo_png()).decode()
    sent = ImageContent(data=png, mime_type="image/png").model_dump(
        by_alias=True, exclude_none=True
    )
    async with connected(base) as client:
        result = await client.call_tool(
            "assistant", {"message": "What is this?\n/image\n/file notes.txt", "content": [sent]}
        )

    assert not result.is_error, text(result)
    said, image, document = result.content
    assert isinstance(said, TextContent)
    assert said.text == 'You said: "What is this?" and attached: an image (image/png, 74 bytes)'
    assert image == ImageContent(data=png, mime_type="image/png")
    assert isinstance(document, EmbeddedResource)
    assert document.resource.mime_type == "text/plain"
    assert document.resource.uri == "runyard://content/notes.txt"


async def test_a_content_argument_runyard_cannot_take_is_an_error_naming_it(base: str) -> None:
    pdf = {"type": "image", "data": "JVBERg==", "mimeType": "application/pdf"}
    async with connected(base) as client:
        malformed = await client.call_tool(
            "assistant", {"message": "x", "content": [{"type": "x"}]}
        )
        wrong_type = await client.call_tool("assistant", {"message": "x", "content": [pdf]})

    assert malformed.is_error
    assert "content.0" in text(malformed)
    assert wrong_type.is_error
    assert "content.0.mime_type" in text(wrong_type)
