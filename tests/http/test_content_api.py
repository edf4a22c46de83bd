"""Content blocks through ``POST /v1/chat``: images and files reach the model, answers with images
arrive as ``content`` events, and both are replayed by ``/messages``, on SQLite and PostgreSQL.
Bad blocks are 4xx naming the field, and nothing is stored."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from http_harness import ALICE_OWNER, asgi_client, asgi_sse, running_app, settled
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from runyard import Agent, ImagePart, Memory, tool
from runyard.models.demo_script import demo_png
from runyard.storage import Store

PNG = base64.b64encode(demo_png()).decode()


async def test_an_image_goes_in_and_an_image_comes_out_on_sse_and_in_history(
    any_backend_url: str,
) -> None:
    body = {
        "message": "What is this?\n/image",
        "content": [{"type": "image", "mime_type": "image/png", "base64": PNG}],
    }
    async with running_app(any_backend_url) as app, asgi_client(app) as client:
        started = await client.post("/v1/chat/t1", json=body)
        assert started.status_code == 200, started.text
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        await settled(app, "t1")
        history = (await client.get("/v1/threads/t1/messages")).json()

    events = [f.data for f in frames if f.data is not None]
    text = "".join(e["payload"]["text"] for e in events if e["type"] == "text-delta")
    assert text == 'You said: "What is this?" and attached: an image (image/png, 74 bytes)'
    (content,) = [e for e in events if e["type"] == "content"]
    (block,) = content["payload"]["blocks"]
    assert block == {
        "type": "image",
        "mime_type": "image/png",
        "base64": PNG,
        "filename": "demo.png",
    }
    assert _history_blocks(history) == [
        ("user", {"type": "image", "mime_type": "image/png", "base64": PNG}),
        ("assistant", block),
    ]


def _history_blocks(history: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (message["role"], block)
        for message in history["messages"]
        for block in message.get("blocks", [])
    ]


async def test_content_alone_without_text_starts_a_run(any_backend_url: str) -> None:
    body = {"content": [{"type": "file", "mime_type": "text/plain", "base64": "aGk="}]}
    async with running_app(any_backend_url) as app, asgi_client(app) as client:
        started = await client.post("/v1/chat/t1", json=body)
        await settled(app, "t1")
    assert started.status_code == 200, started.text


@pytest.mark.parametrize(
    ("block", "status", "field"),
    [
        (
            {"type": "image", "mime_type": "image/png", "base64": "not base64!"},
            422,
            "body.content.0.image.base64",
        ),
        (
            {
                "type": "image",
                "mime_type": "image/png",
                "base64": base64.b64encode(b"x" * 2000).decode(),
            },
            413,
            "content.0.base64",
        ),
        (
            {"type": "image", "mime_type": "application/pdf", "base64": PNG},
            422,
            "content.0.mime_type",
        ),
        ({"type": "hologram", "data": "x"}, 422, "body.content.0"),
        ({"type": "file", "file_id": "file_123"}, 404, "content.0.file_id"),  # no such upload
        # A file id beside inline data is looked up all the same: the run would reference it.
        (
            {"type": "file", "file_id": "file_123", "mime_type": "text/plain", "base64": "aGk="},
            404,
            "content.0.file_id",
        ),
        ({"type": "reasoning", "text": "I think"}, 422, "body.content.0"),  # the model's alone
        ({"url": "https://example.com/a.png"}, 422, "body.content.0"),  # no type, no kind
    ],
)
async def test_a_bad_block_is_refused_naming_its_field_and_nothing_is_stored(
    any_backend_url: str, block: dict[str, Any], status: int, field: str
) -> None:
    settings = {"max_inline_content_bytes": 1000}
    async with running_app(any_backend_url, settings=settings) as app, asgi_client(app) as client:
        refused = await client.post("/v1/chat/t1", json={"message": "hi", "content": [block]})
        thread = await client.get("/v1/threads/t1/messages")
    assert refused.status_code == status, refused.text
    assert [f["field"] for f in refused.json()["error"]["fields"]] == [field]
    assert thread.status_code == 404


class FakeFiles:
    """The file store as one owner sees it: their files only; references recorded."""

    def __init__(self, files: dict[str, tuple[str, bytes]]) -> None:
        self.files = files
        self.references: list[tuple[str, str]] = []

    async def read_file(self, file_id: str) -> tuple[str, bytes]:
        if file_id not in self.files:
            raise LookupError(file_id)
        return self.files[file_id]

    async def reference(self, file_id: str, thread_id: str) -> None:
        self.references.append((file_id, thread_id))


def seeing_agents(seen: list[list[Any]]) -> Callable[[Store], list[Agent]]:
    """An agent whose model records each user prompt's items as it saw them."""

    async def stream(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        prompts = [
            p
            for m in messages
            if isinstance(m, pai.ModelRequest)
            for p in m.parts
            if isinstance(p, pai.UserPromptPart)
        ]
        seen.append(
            [
                item
                for p in prompts
                for item in ([p.content] if isinstance(p.content, str) else p.content)
            ]
        )
        yield "Seen."

    return lambda store: [
        Agent("assistant", FunctionModel(stream_function=stream), memory=Memory(store))
    ]


async def test_a_stored_file_is_read_for_the_model_and_history_keeps_only_its_id(
    any_backend_url: str,
) -> None:
    seen: list[list[Any]] = []
    alice = FakeFiles({"file_1": ("image/png", demo_png())})
    stores = {ALICE_OWNER: alice}
    body = {"message": "Describe", "content": [{"type": "image", "file_id": "file_1"}]}
    async with (
        running_app(
            any_backend_url,
            seeing_agents(seen),
            files=lambda owner: stores.get(owner, FakeFiles({})),
        ) as app,
        asgi_client(app) as client,
    ):
        started = await client.post("/v1/chat/t1", json=body)
        await settled(app, "t1")
        again = await client.post("/v1/chat/t1", json={"message": "And again?"})
        await settled(app, "t1")
        history = (await client.get("/v1/threads/t1/messages")).json()
        other = await client.post("/v1/chat/t2", json=body, headers={"X-Runyard-User": "bob"})

    assert started.status_code == again.status_code == 200
    first, second = seen
    assert first == ["Describe", pai.BinaryContent(demo_png(), media_type="image/png")]
    assert second[:2] == first  # the history's file is read again for the next call
    assert alice.references == [("file_1", "t1")]
    assert _history_blocks(history)[0] == ("user", {"type": "image", "file_id": "file_1"})
    assert other.status_code == 404
    assert other.json()["error"]["fields"][0]["field"] == "content.0.file_id"


async def test_an_image_url_reaches_the_model_as_an_image_url(any_backend_url: str) -> None:
    seen: list[list[Any]] = []
    url = "https://example.com/cat.png"
    body = {"content": [{"type": "image", "url": url}]}
    async with running_app(any_backend_url, seeing_agents(seen)) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json=body)
        await settled(app, "t1")
    assert seen == [[pai.ImageUrl(url)]]


async def test_an_image_a_tool_returns_is_a_content_event_of_its_call_and_the_model_sees_it(
    any_backend_url: str,
) -> None:
    returned: list[Any] = []

    @tool
    async def draw() -> list[Any]:
        """Draw a picture."""
        return ["drawn", ImagePart(mime_type="image/png", base64=PNG)]

    async def stream(
        messages: list[pai.ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        last = messages[-1]
        assert isinstance(last, pai.ModelRequest)
        results = [p for p in last.parts if isinstance(p, pai.ToolReturnPart)]
        if not results:
            yield {0: DeltaToolCall(name="draw", json_args="{}", tool_call_id="call_1")}
            return
        returned.append(results[0].content)
        yield "Drawn."

    def agents(store: Store) -> list[Agent]:
        model = FunctionModel(stream_function=stream)
        return [Agent("assistant", model, tools=[draw], memory=Memory(store))]

    async with running_app(any_backend_url, agents) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "Draw"})
        async with asgi_sse(app, "/v1/events/t1") as stream_:
            frames = await stream_.until("run-finish")
        await settled(app, "t1")

    events = [f.data for f in frames if f.data is not None]
    kinds = [e["type"] for e in events if e["type"] not in ("text-delta", "reasoning-delta")]
    assert kinds == ["run-start", "tool-call", "content", "tool-result", "run-finish"]
    (content,) = [e for e in events if e["type"] == "content"]
    assert content["payload"] == {
        "blocks": [{"type": "image", "mime_type": "image/png", "base64": PNG}],
        "toolCallId": "call_1",
    }
    assert returned == [["drawn", pai.BinaryContent(demo_png(), media_type="image/png")]]


def _content_blocks(frames: list[Any]) -> list[dict[str, Any]]:
    events = [f.data for f in frames if f.data is not None]
    return [b for e in events if e["type"] == "content" for b in e["payload"]["blocks"]]


async def test_a_large_image_the_model_draws_is_stored_and_travels_by_reference(
    any_backend_url: str,
) -> None:
    settings = {"max_inline_content_bytes": 50}  # the demo's PNG is 74 bytes
    async with running_app(any_backend_url, settings=settings) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": "Draw\n/image"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        await settled(app, "t1")
        history = (await client.get("/v1/threads/t1/messages")).json()
        (block,) = _content_blocks(frames)
        download = await client.get(block["url"])
        bobs = await client.get(block["url"], headers={"X-Runyard-User": "bob"})
        # The next call reads the stored image back for the model (the demo would fail else).
        await client.post("/v1/chat/t1", json={"message": "And now?"})
        async with asgi_sse(app, f"/v1/events/t1?lastEventId={frames[-1].id}") as stream:
            again = await stream.until("run-finish")
        await settled(app, "t1")
        await client.delete("/v1/threads/t1")
        after_delete = await client.get(block["url"])

    file_id = block["file_id"]
    assert block == {
        "type": "image",
        "mime_type": "image/png",
        "file_id": file_id,
        "filename": "demo.png",
        "url": f"/v1/files/{file_id}",
    }
    assert _history_blocks(history) == [("assistant", block)]
    assert download.status_code == 200
    assert download.content == demo_png()
    assert bobs.status_code == 404
    assert again[-1].data["payload"]["status"] == "completed"
    assert after_delete.status_code == 404  # only the thread referenced it


BIG_PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8  # 2056 bytes, sniffed as a PNG


def drawing_agents(returned: list[Any]) -> Callable[[Store], list[Agent]]:
    """An agent whose model calls ``draw`` (a tool returning ``BIG_PNG``), then records the
    tool's content as it read it."""

    @tool
    async def draw() -> list[Any]:
        """Draw a picture."""
        return [
            "drawn",
            ImagePart(mime_type="image/png", base64=base64.b64encode(BIG_PNG).decode()),
        ]

    async def stream(
        messages: list[pai.ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        last = messages[-1]
        assert isinstance(last, pai.ModelRequest)
        results = [p for p in last.parts if isinstance(p, pai.ToolReturnPart)]
        if not results:
            yield {0: DeltaToolCall(name="draw", json_args="{}", tool_call_id="call_1")}
            return
        returned.append(results[0].content)
        yield "Drawn."

    def agents(store: Store) -> list[Agent]:
        model = FunctionModel(stream_function=stream)
        return [Agent("assistant", model, tools=[draw], memory=Memory(store))]

    return agents


async def test_a_large_image_a_tool_returns_is_stored_before_its_content_event(
    any_backend_url: str,
) -> None:
    big = BIG_PNG
    returned: list[Any] = []
    agents = drawing_agents(returned)

    settings = {"max_inline_content_bytes": 1000}
    async with (
        running_app(any_backend_url, agents, settings=settings) as app,
        asgi_client(app) as client,
    ):
        await client.post("/v1/chat/t1", json={"message": "Draw"})
        async with asgi_sse(app, "/v1/events/t1") as stream_:
            frames = await stream_.until("run-finish")
        await settled(app, "t1")
        history = (await client.get("/v1/threads/t1/messages")).json()
        (block,) = _content_blocks(frames)
        download = await client.get(block["url"])

    file_id = block["file_id"]
    assert block == {
        "type": "image",
        "mime_type": "image/png",
        "file_id": file_id,
        "url": f"/v1/files/{file_id}",
    }
    events = [f.data for f in frames if f.data is not None]
    (result,) = [e for e in events if e["type"] == "tool-result"]
    assert result["payload"]["result"] == ["drawn", block]
    assert download.content == big
    assert returned == [["drawn", pai.BinaryContent(big, media_type="image/png")]]
    assert ("assistant", block) in _history_blocks(history)  # the agent tree's blocks


async def test_a_delegated_sub_agents_large_image_is_stored_too(any_backend_url: str) -> None:
    delegate = {
        "role": "artist",
        "instructions": "Draw.",
        "briefing": "/image",
        "tools": ["calculator"],
    }
    message = f"/tool delegate {json.dumps(delegate)}"
    settings = {"max_inline_content_bytes": 50}
    async with running_app(any_backend_url, settings=settings) as app, asgi_client(app) as client:
        await client.post("/v1/chat/t1", json={"message": message})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        await settled(app, "t1")
        events = [f.data for f in frames if f.data is not None]
        (content,) = [e for e in events if e["type"] == "content"]
        (block,) = content["payload"]["blocks"]
        download = await client.get(block["url"])

    assert content["agentId"] != "agent-001"  # the sub-agent's
    assert block["file_id"].startswith("file_")
    assert "base64" not in block
    assert download.content == demo_png()
    assert events[-1]["payload"]["status"] == "completed"


async def test_a_tool_image_the_store_refuses_is_the_calls_error(any_backend_url: str) -> None:
    returned: list[Any] = []
    settings = {"max_inline_content_bytes": 1000, "tenant_file_quota_bytes": 1500}
    async with (
        running_app(any_backend_url, drawing_agents(returned), settings=settings) as app,
        asgi_client(app) as client,
    ):
        await client.post("/v1/chat/t1", json={"message": "Draw"})
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        await settled(app, "t1")

    events = [f.data for f in frames if f.data is not None]
    kinds = [e["type"] for e in events if e["type"] not in ("text-delta", "reasoning-delta")]
    assert kinds == ["run-start", "tool-call", "tool-error", "run-finish"]
    (error,) = [e["payload"]["error"] for e in events if e["type"] == "tool-error"]
    assert error.startswith("Tool draw: its output could not be stored:")
    assert returned == [error]  # the model read the reason
    assert events[-1]["payload"]["status"] == "completed"
