"""A real provider adapter through the façade: pydantic-ai's OpenAI client against a local server.

The server is a few lines on ``asyncio.start_server`` speaking the Chat Completions SSE wire
format (and the embeddings endpoint), on 127.0.0.1 with an OS-chosen port. Like many
OpenAI-compatible servers it has no Responses API: any other path is a 404.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pydantic_ai.models
import pytest
from pydantic_ai.exceptions import ModelHTTPError

from runyard.messages import AgentMessage, TextPart, ToolCallPart
from runyard.models import (
    ModelTurn,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    model_label,
    resolve_embedder,
    resolve_model,
    stream_model,
)

CHUNKS: list[dict[str, Any]] = [
    {"delta": {"role": "assistant", "content": "Let me "}},
    {"delta": {"content": "check."}},
    {
        "delta": {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "calculator", "arguments": '{"expression"'},
                }
            ]
        }
    },
    {"delta": {"tool_calls": [{"index": 0, "function": {"arguments": ': "1+1"}'}}]}},
    {"delta": {}, "finish_reason": "tool_calls"},
]


class LocalServer:
    """Answers chat completions with ``CHUNKS`` as SSE, embeddings with fixed vectors, else 404."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.base_url = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, *header_lines = head.decode().split("\r\n")
        headers = {
            k.strip().lower(): v.strip()
            for k, _, v in (line.partition(":") for line in header_lines if line)
        }
        body = json.loads(await reader.readexactly(int(headers["content-length"])))
        self.bodies.append(body)
        path = request_line.split()[1]
        self.paths.append(path)
        if path.endswith("/embeddings"):
            writer.write(_json_response(_embeddings(body["input"])))
        elif not path.endswith("/chat/completions"):
            writer.write(_json_response({"error": {"message": "Not Found"}}, "404 Not Found"))
        else:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n")
            writer.write(b"Connection: close\r\n\r\n")
            for chunk in _stream_chunks():
                writer.write(f"data: {json.dumps(chunk)}\n\n".encode())
            writer.write(b"data: [DONE]\n\n")
        await writer.drain()
        writer.close()


def _stream_chunks() -> list[dict[str, Any]]:
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "local"}
    chunks = [{**base, "choices": [{"index": 0, "finish_reason": None, **c}]} for c in CHUNKS[:-1]]
    chunks.append({**base, "choices": [{"index": 0, **CHUNKS[-1]}]})
    usage = {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}
    chunks.append({**base, "choices": [], "usage": usage})
    return chunks


def _embeddings(inputs: list[str]) -> dict[str, Any]:
    data = [
        {"object": "embedding", "index": n, "embedding": [float(len(text)), 1.0]}
        for n, text in enumerate(inputs)
    ]
    usage = {"prompt_tokens": 3, "total_tokens": 3}
    return {"object": "list", "data": data, "model": "local-embed", "usage": usage}


def _json_response(payload: dict[str, Any], status: str = "200 OK") -> bytes:
    body = json.dumps(payload).encode()
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


@pytest.fixture
async def server(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[LocalServer]:
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    local = LocalServer()
    listener = await asyncio.start_server(local.handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    local.base_url = f"http://127.0.0.1:{port}/v1"
    async with listener:
        yield local


async def test_text_and_a_tool_call_stream_through_a_real_adapter(server: LocalServer) -> None:
    model = resolve_model("openai-compatible:local", base_url=server.base_url)
    calculator = ToolSpec(
        "calculator",
        "Arithmetic.",
        {"type": "object", "properties": {"expression": {"type": "string"}}},
    )
    items = [
        item
        async for item in stream_model(
            model,
            [AgentMessage.user("what is 1+1?")],
            instructions="Use tools.",
            tools=[calculator],
        )
    ]
    assert [i.text for i in items if isinstance(i, TextDelta)] == ["Let me ", "check."]
    call_deltas = [i for i in items if isinstance(i, ToolCallDelta)]
    assert call_deltas[0] == ToolCallDelta("call_1", "calculator", '{"expression"')
    assert "".join(d.args_delta or "" for d in call_deltas) == '{"expression": "1+1"}'
    turn = items[-1]
    assert isinstance(turn, ModelTurn)
    assert turn.message.parts == [
        TextPart(text="Let me check."),
        ToolCallPart(tool_call_id="call_1", tool_name="calculator", args={"expression": "1+1"}),
    ]
    assert turn.finish_reason == "tool-calls"
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (12, 7)
    assert turn.usage.cost is None  # a local server has no catalog price
    assert turn.model_name == "openai-compatible:local"

    sent = server.bodies[0]
    assert sent["stream"] is True
    assert sent["messages"][0] == {"role": "system", "content": "Use tools."}
    assert sent["messages"][-1]["content"] == "what is 1+1?"
    assert [t["function"]["name"] for t in sent["tools"]] == ["calculator"]


async def test_an_openai_compatible_embedder_embeds_through_the_server(server: LocalServer) -> None:
    embedder = resolve_embedder("openai-compatible:local-embed", base_url=server.base_url)
    vectors = await embedder.embed(["ab", "abcd"])
    assert vectors == [[2.0, 1.0], [4.0, 1.0]]
    assert server.bodies[0]["input"] == ["ab", "abcd"]
    assert embedder.usage.input_tokens == 3
    assert embedder.usage.requests == 1


async def test_openai_chat_with_openai_base_url_calls_chat_completions_and_says_so(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    model = resolve_model("openai-chat:local")
    turn = await _last_item(model)
    assert isinstance(turn, ModelTurn)
    assert server.paths == ["/v1/chat/completions"]
    assert model_label(model) == turn.model_name == "openai-chat:local"


async def test_openai_with_openai_base_url_calls_the_responses_api_and_says_so(
    server: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    model = resolve_model("openai:local")
    with pytest.raises(ModelHTTPError) as failed:
        await _last_item(model)
    assert failed.value.status_code == 404
    assert server.paths == ["/v1/responses"]
    assert model_label(model) == "openai:local"


async def _last_item(model: pydantic_ai.models.Model) -> object:
    items = [
        item
        async for item in stream_model(
            model, [AgentMessage.user("hi")], instructions=None, tools=[]
        )
    ]
    return items[-1]
