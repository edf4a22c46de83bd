"""Text PostgreSQL cannot store, on both backends alike.

A user's message or answer holding a NUL or a lone surrogate is refused with 422 naming the
field; the same from a model ends its run normally (NUL kept in the events, a lone surrogate as
U+FFFD, titles with U+FFFD for both), never a 500 or a thread stuck with an open run.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from http_harness import asgi_client, asgi_sse, running_app, settled
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.storage import Store

NUL, SURROGATE = "\x00", "\ud800"
ASKED = "please plan a trip to the mountains"
BODIES = [
    ("/v1/chat/t1", b'{"message": "a\\u0000b"}', "body.message"),
    ("/v1/chat/t1", b'{"message": "a\\ud800b"}', "body.message"),
    ("/v1/confirm/cr_1", b'{"approved": true, "reason": "no\\u0000"}', "body.reason"),
    ("/v1/confirm/cr_1", b'{"approved": true, "userInput": "\\udc00"}', "body.userInput"),
    (
        "/v1/confirm/cr_1",
        b'{"approved": true, "answers": [{"q": ["\\u0000"]}]}',
        "body.answers.0.q",
    ),
    ("/v1/confirm/cr_1", b'{"approved": true, "note": {"k": "\\u0000"}}', "body.note"),
]


@pytest.mark.parametrize(("path", "body", "field"), BODIES)
async def test_user_text_with_a_nul_or_lone_surrogate_is_422_naming_the_field(
    any_backend_url: str, path: str, body: bytes, field: str
) -> None:
    async with running_app(any_backend_url) as app, asgi_client(app) as client:
        response = await client.post(
            path, content=body, headers={"content-type": "application/json"}
        )
        threads = (await client.get("/v1/threads")).json()

    assert response.status_code == 422
    assert [f["field"] for f in response.json()["error"]["fields"]] == [field]
    assert threads == {"threads": []}


def odd_model(odd: str) -> FunctionModel:
    """Streams replies with ``odd`` in them, and titles threads with it."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(f"Title {odd}")])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield f"hi {odd} there"
        yield f" and {odd}"

    return FunctionModel(respond, stream_function=stream)


@pytest.mark.parametrize("odd", [NUL, SURROGATE], ids=["nul", "lone-surrogate"])
async def test_odd_text_from_the_model_ends_the_run_normally(
    any_backend_url: str, odd: str
) -> None:
    sent = odd if odd == NUL else "\ufffd"
    stored = "\ufffd"

    def agents(store: Store) -> list[Agent]:
        return [Agent("assistant", odd_model(odd), memory=Memory(store))]

    options: dict[str, Any] = {"titles": True}
    async with (
        running_app(any_backend_url, agents, **options) as app,
        asgi_client(app) as client,
    ):
        first = await client.post("/v1/chat/t1", json={"message": ASKED})
        # A wedged run never finishes, and keep-alive pings would keep the stream waiting.
        async with asyncio.timeout(30), asgi_sse(app, "/v1/events/t1") as stream:
            live = [f.data for f in await stream.until("run-finish")]
        await settled(app, "t1")
        async with asgi_sse(app, "/v1/events/t1") as stream:
            replayed = [f.data for f in await stream.until("run-finish")]
        history = await client.get("/v1/threads/t1/messages")
        listed = await client.get("/v1/threads")
        status = await client.get("/v1/threads/t1/status")
        again = await client.post("/v1/chat/t1", json={"message": "again"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            await stream.until("run-finish")
            second = [f.data for f in await stream.until("run-finish")]

    assert (first.status_code, history.status_code, listed.status_code) == (200, 200, 200)
    assert (live[-1]["type"], live[-1]["payload"]["status"]) == ("run-finish", "completed")
    assert replayed == live
    texts = [e["payload"]["text"] for e in live if e and e["type"] == "text-delta"]
    assert "".join(texts) == f"hi {sent} there and {sent}"
    assert [m["content"] for m in history.json()["messages"]] == [
        ASKED,
        f"hi {sent} there and {sent}",
    ]
    assert listed.json()["threads"][0]["title"] == f"Title {stored}"
    assert status.json()["hasActiveRun"] is False
    assert again.status_code == 200
    assert second[-1]["payload"]["status"] == "completed"
