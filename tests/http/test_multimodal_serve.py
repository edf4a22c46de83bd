"""Issue 31's "done when", against a real ``runyard serve`` process with API keys: a user uploads
an image, sends it by ``file_id`` over gRPC and as a ``data:`` URL through the ``openai`` client;
the (simulated) vision model says what it saw and answers with an image of its own, which is
larger than the inline limit, so it is stored and travels by reference — on gRPC ``Stream``, on
SSE and in ``/messages`` — and is served back to its owner only (a ticket URL for an ``<img>``)."""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import httpx
import openai
import pytest
from http_harness import FrameParser, free_port

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.grpc.v1 import inference_pb2_grpc as pb_grpc
from runyard.models.demo_script import demo_png
from runyard.service.api_keys import issue_api_key
from runyard.storage import open_store

pytestmark = pytest.mark.slow

PNG = demo_png()  # 74 bytes: over the server's inline limit below
SMALL = PNG[:48]  # under it, inline: what the demo model reports is its size and type
SAW = 'You said: "What is this?" and attached: an image (image/png, {} bytes)'


async def keys(url: str) -> tuple[str, str]:
    """Alice's and Bob's API keys, issued in the database before the server starts."""
    store = await open_store(url)
    try:
        alice = await issue_api_key(store, tenant_id="acme", user_id="alice")
        bob = await issue_api_key(store, tenant_id="acme", user_id="bob")
    finally:
        await store.close()
    return alice.token, bob.token


@asynccontextmanager
async def serving(tmp_path: Path, url: str, http_port: int, grpc_port: int) -> AsyncIterator[None]:
    """``runyard serve`` with API keys, HTTP and gRPC, the demo model and a 64-byte inline limit
    (the demo's own image, 74 bytes, is over it)."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        RUNYARD_AUTH="keys",
        RUNYARD_DATABASE_URL=url,
        RUNYARD_MODEL="runyard:demo",
        RUNYARD_REDIS_URL="",
        RUNYARD_MAX_INLINE_CONTENT_BYTES="64",
        PYTHONUNBUFFERED="1",
    )
    command = [sys.executable, "-m", "runyard", "serve", "--host", "127.0.0.1"]
    command += ["--port", str(http_port), "--grpc-port", str(grpc_port)]
    with (tmp_path / "serve.log").open("wb") as sink:
        process = await asyncio.to_thread(
            subprocess.Popen, command, env=env, stdout=sink, stderr=sink
        )
    try:
        await ready(http_port)
        yield
    finally:
        process.terminate()
        try:
            await asyncio.to_thread(process.wait, 30)
        except subprocess.TimeoutExpired:
            process.kill()
            await asyncio.to_thread(process.wait, 20)


async def ready(port: int) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
        async with asyncio.timeout(60):
            while True:
                try:
                    if (await client.get("/readyz")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)


async def grpc_stream(port: int, key: str, request: pb.InvokeRequest) -> list[pb.StreamEvent]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = pb_grpc.InferenceServiceStub(channel).Stream(
            request, metadata=(("authorization", f"Bearer {key}"),), timeout=60
        )
        return [event async for event in call]


async def sse_until_finish(client: httpx.AsyncClient, thread: str) -> list[dict[str, Any]]:
    parser = FrameParser()
    async with asyncio.timeout(30), client.stream("GET", f"/v1/events/{thread}") as response:
        assert response.status_code == 200
        async for chunk in response.aiter_bytes():
            for frame in parser.feed(chunk):
                if frame.data is not None and frame.data["type"] == "run-finish":
                    return [f.data for f in parser.frames if f.data is not None]
    raise AssertionError("the stream ended early")


def grpc_image(events: list[pb.StreamEvent]) -> pb.ImageBlock:
    (image,) = [
        block.image
        for event in events
        if event.WhichOneof("event") == "content"
        for block in event.content.blocks
        if block.WhichOneof("block") == "image"
    ]
    return image


async def test_an_uploaded_image_is_seen_and_the_answers_image_comes_back_by_reference(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'runyard.db'}"
    alice, bob = await keys(url)
    http_port, grpc_port = free_port(), free_port()
    base = f"http://127.0.0.1:{http_port}"
    as_alice = {"Authorization": f"Bearer {alice}"}
    as_bob = {"Authorization": f"Bearer {bob}"}
    async with (
        serving(tmp_path, url, http_port, grpc_port),
        httpx.AsyncClient(base_url=base, headers=as_alice) as client,
    ):
        uploaded = await client.post("/v1/files", files={"file": ("cat.png", PNG)})
        assert uploaded.status_code == 201, uploaded.text
        upload_id = uploaded.json()["id"]

        image_in = pb.ContentBlock(image=pb.ImageBlock(file_id=upload_id))
        request = pb.InvokeRequest(
            thread_id="t1", message="What is this?\n/image", content=[image_in]
        )
        on_grpc = await grpc_stream(grpc_port, alice, request)
        on_sse = await sse_until_finish(client, "t1")
        history = (await client.get("/v1/threads/t1/messages")).json()

        drawn = grpc_image(on_grpc)
        owners = await client.get(f"/v1/files/{drawn.file_id}")
        bobs = await client.get(f"/v1/files/{drawn.file_id}", headers=as_bob)
        bobs_upload = await client.get(f"/v1/files/{upload_id}", headers=as_bob)
        bobs_ticket = await client.post(f"/v1/files/{drawn.file_id}/ticket", headers=as_bob)
        ticket = (await client.post(f"/v1/files/{drawn.file_id}/ticket")).json()
        async with httpx.AsyncClient(base_url=base) as browser:  # an <img>: no key
            by_ticket = await browser.get(ticket["url"])
            without = await browser.get(f"/v1/files/{drawn.file_id}")

        completion = await asyncio.to_thread(
            openai_completion,
            base,
            alice,
            "data:image/png;base64," + base64.b64encode(SMALL).decode(),
        )

    # The model saw the upload, and answered with an image: on gRPC by reference...
    said = "".join(e.token.text for e in on_grpc if e.WhichOneof("event") == "token")
    assert said == SAW.format(74)
    assert drawn.file_id.startswith("file_")
    assert drawn.url == f"/v1/files/{drawn.file_id}"
    assert (drawn.mime_type, drawn.name, drawn.data) == ("image/png", "demo.png", b"")
    block = {
        "type": "image",
        "mime_type": "image/png",
        "file_id": drawn.file_id,
        "filename": "demo.png",
        "url": f"/v1/files/{drawn.file_id}",
    }
    # ... on SSE the same block ...
    content = [e["payload"]["blocks"] for e in on_sse if e["type"] == "content"]
    assert content == [[block]]
    # ... and /messages holds what the user sent and what the model drew.
    rows = [(m["role"], b) for m in history["messages"] for b in m.get("blocks", [])]
    assert rows == [("user", {"type": "image", "file_id": upload_id}), ("assistant", block)]
    # Served to its owner only: another user's key gets 404, a key-less URL needs a ticket.
    assert owners.status_code == 200
    assert owners.content == PNG
    assert bobs.status_code == bobs_upload.status_code == bobs_ticket.status_code == 404
    assert by_ticket.status_code == 200
    assert by_ticket.content == PNG
    assert without.status_code == 401
    # The openai client: an image as a data: URL is seen; the answer's image is a link.
    message = completion.choices[0].message
    assert message.content == SAW.format(48)
    (image,) = (message.model_extra or {})["images"]
    assert image["image_url"]["url"].startswith("/v1/files/file_")


def openai_completion(base: str, key: str, data_url: str) -> Any:
    with openai.OpenAI(base_url=f"{base}/openai/v1", api_key=key, max_retries=0) as client:
        return client.chat.completions.create(
            model="assistant",
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "What is this?\n/image"},
                        {"type": "image_url", "image_url": {"url": data_url}},
                    ],
                }
            ],
        )
