"""A local server speaking OpenAI's Chat Completions wire format, for tests of real provider adapters.

A few lines on ``asyncio.start_server``, on 127.0.0.1 with an OS-chosen port. It streams
``CHUNKS`` as SSE, answers embeddings with fixed vectors, and, like many OpenAI-compatible
servers, has no Responses API: any other path is a 404. ``fail_with`` makes chat completions
answer an HTTP error instead, in OpenAI's error format.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from http import HTTPStatus
from typing import Any

import pydantic_ai.models

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
    """Answers chat completions with ``CHUNKS`` as SSE, embeddings with fixed vectors, else 404.

    A chat completion asked for without streaming is answered by ``answer`` (the request body
    in, the reply's text out) as one JSON completion.
    """

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.base_url = ""
        self.failure: tuple[int, dict[str, Any]] | None = None
        self.answer: Callable[[dict[str, Any]], str] = lambda _body: "ok"

    def fail_with(self, status: int, message: str, code: str | None = None) -> None:
        """Answer every later chat completion with HTTP ``status`` and OpenAI's error body."""
        self.failure = (status, {"message": message, "type": "api_error", "code": code})

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
        elif self.failure is not None:
            status, error = self.failure
            # The SDK would otherwise retry a 429 or a 5xx after a back-off.
            writer.write(_json_response({"error": error}, _status_line(status), no_retry=True))
        elif not body.get("stream"):
            writer.write(_json_response(_completion(self.answer(body))))
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


def _completion(content: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    return {
        "id": "chatcmpl-2",
        "object": "chat.completion",
        "created": 1,
        "model": "local",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19},
    }


def _embeddings(inputs: list[str]) -> dict[str, Any]:
    data = [
        {"object": "embedding", "index": n, "embedding": [float(len(text)), 1.0]}
        for n, text in enumerate(inputs)
    ]
    usage = {"prompt_tokens": 3, "total_tokens": 3}
    return {"object": "list", "data": data, "model": "local-embed", "usage": usage}


def _status_line(status: int) -> str:
    return f"{status} {HTTPStatus(status).phrase}"


def _json_response(
    payload: dict[str, Any], status: str = "200 OK", *, no_retry: bool = False
) -> bytes:
    body = json.dumps(payload).encode()
    retry = "x-should-retry: false\r\n" if no_retry else ""
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{retry}"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


@asynccontextmanager
async def local_openai_server() -> AsyncIterator[LocalServer]:
    """A running ``LocalServer``; model requests are allowed while it runs."""
    allowed = pydantic_ai.models.ALLOW_MODEL_REQUESTS
    pydantic_ai.models.ALLOW_MODEL_REQUESTS = True
    local = LocalServer()
    listener = await asyncio.start_server(local.handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    local.base_url = f"http://127.0.0.1:{port}/v1"
    try:
        async with listener:
            yield local
    finally:
        pydantic_ai.models.ALLOW_MODEL_REQUESTS = allowed
