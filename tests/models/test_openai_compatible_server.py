"""A real provider adapter through the façade: pydantic-ai's OpenAI client against a local server.

The server (``local_openai_server``) speaks the Chat Completions SSE wire format and the
embeddings endpoint; like many OpenAI-compatible servers it has no Responses API.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

import pydantic_ai.models
import pytest

from local_openai_server import LocalServer, local_openai_server
from runyard.messages import AgentMessage, AudioPart, FilePart, ImagePart, TextPart, ToolCallPart
from runyard.models import (
    ModelProviderError,
    ModelTurn,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    model_label,
    resolve_embedder,
    resolve_model,
    stream_model,
)
from runyard.models.demo_script import demo_png


@pytest.fixture
async def server() -> AsyncIterator[LocalServer]:
    async with local_openai_server() as local:
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
    with pytest.raises(ModelProviderError) as failed:
        await _last_item(model)
    assert failed.value.status_code == 404
    assert server.paths == ["/v1/responses"]
    assert model_label(model) == "openai:local"


async def _last_item(
    model: pydantic_ai.models.Model, settings: dict[str, Any] | None = None
) -> object:
    items = [
        item
        async for item in stream_model(
            model, [AgentMessage.user("hi")], instructions=None, tools=[], settings=settings
        )
    ]
    return items[-1]


@pytest.mark.parametrize(
    ("status", "code", "phrase"),
    [
        (429, "rate_limit_exceeded", "429 Too Many Requests"),
        (500, None, "500 Internal Server Error"),
        (401, "invalid_api_key", "401 Unauthorized"),
    ],
)
async def test_a_provider_error_leaves_the_model_layer_as_a_model_provider_error(
    server: LocalServer, status: int, code: str | None, phrase: str
) -> None:
    server.fail_with(status, "the provider says no", code)
    model = resolve_model("openai-compatible:local", base_url=server.base_url)
    with pytest.raises(ModelProviderError) as failed:
        await _last_item(model)
    error = failed.value
    assert (error.provider, error.model) == ("openai-compatible", "openai-compatible:local")
    assert (error.status_code, error.code) == (status, code)
    assert str(error) == f"openai-compatible:local answered HTTP {phrase}: the provider says no"
    assert server.paths == ["/v1/chat/completions"]  # no retry behind our back


async def test_an_unreachable_provider_is_a_model_provider_error_without_a_status(
    server: LocalServer,
) -> None:
    model = resolve_model("openai-compatible:local", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ModelProviderError) as failed:
        await _last_item(model, settings={"max_retries": 0})
    assert failed.value.status_code is None
    assert failed.value.provider == "openai-compatible"
    assert str(failed.value).startswith("openai-compatible:local failed: ")


async def test_images_audio_and_documents_go_out_as_openai_content_parts(
    server: LocalServer,
) -> None:
    png = base64.b64encode(demo_png()).decode()
    wav = base64.b64encode(b"RIFF....WAVEfmt ").decode()
    pdf = base64.b64encode(b"%PDF-1.4 tiny").decode()
    message = AgentMessage(
        role="user",
        parts=[
            TextPart(text="Describe these."),
            ImagePart(mime_type="image/png", base64=png),
            ImagePart(url="https://example.com/cat.png"),
            AudioPart(mime_type="audio/wav", base64=wav),
            FilePart(mime_type="application/pdf", base64=pdf, filename="r.pdf"),
        ],
    )
    model = resolve_model("openai-compatible:local", base_url=server.base_url)
    [item async for item in stream_model(model, [message], instructions=None, tools=[])]

    (sent,) = [m for m in server.bodies[-1]["messages"] if m["role"] == "user"]
    kinds = [(part["type"], _source(part)) for part in sent["content"]]
    assert kinds == [
        ("text", "Describe these."),
        ("image_url", f"data:image/png;base64,{png}"),
        ("image_url", "https://example.com/cat.png"),
        ("input_audio", wav),
        ("file", f"data:application/pdf;base64,{pdf}"),
    ]


def _source(part: dict[str, Any]) -> str:
    kind = part["type"]
    if kind == "text":
        return str(part["text"])
    if kind == "image_url":
        return str(part["image_url"]["url"])
    if kind == "input_audio":
        return str(part["input_audio"]["data"])
    return str(part["file"]["file_data"])
