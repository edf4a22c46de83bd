"""``FaceStream``: a face's event stream as an HTTP response that ends with its run, and cancels
the run when the client goes away first (a closed tab, an ``AbortController``).

Starlette's ``StreamingResponse`` notices a client that left only when it next writes, which a
stream waiting on a tool may not do for minutes; this one watches the connection, as the ``/v1``
event stream does.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

__all__ = ["FaceStream", "client_left", "sse_data", "stream_operation"]

Frames = Callable[[asyncio.Event], AsyncGenerator[bytes, None]]
"""Makes the stream's bytes; the event it is given is set when the server goes away."""


_ERRORS = (400, 401, 404, 409, 410, 413, 422, 429, 503)
"""What a face's stream route answers before its stream starts (``/v1``'s statuses)."""


def stream_operation(
    errors: Callable[..., dict[int | str, dict[str, Any]]],
    description: str,
    frame: str,
    headers: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The route decorator's arguments for a face's stream: its 200 (``description``, each
    frame's ``data`` described by ``frame``, the response ``headers``) and its errors."""
    data = {"type": "string", "description": frame}
    schema = {"type": "object", "required": ["data"], "properties": {"data": data}}
    streamed: dict[str, Any] = {
        "description": description,
        "content": {"text/event-stream": {"schema": schema}},
    }
    if headers:
        streamed["headers"] = dict(headers)
    return {
        "response_class": FaceStream,
        "status_code": 200,
        "responses": {200: streamed, **errors(*_ERRORS)},
    }


def sse_data(value: Any) -> bytes:
    """One Server-Sent Events frame carrying ``value`` as JSON (or a bare string as it is)."""
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return f"data: {text}\n\n".encode()


class FaceStream(Response):
    """Streams ``frames`` until they end; a client that leaves before calls ``abandoned``.

    ``counted`` is entered for the response's whole life (the app's drain waits for it) and
    gives the going-away event ``frames`` is made with.
    """

    media_type = "text/event-stream"

    def __init__(
        self,
        frames: Frames,
        counted: AbstractContextManager[asyncio.Event],
        abandoned: Callable[[], Awaitable[None]],
        headers: Mapping[str, str],
    ) -> None:
        self.frames = frames
        self.counted = counted
        self.abandoned = abandoned
        self.status_code = 200
        self.background = None
        fixed = {
            "content-type": "text/event-stream",
            "cache-control": "no-cache",
            "x-accel-buffering": "no",
            **headers,
        }
        self.raw_headers = [(k.encode(), v.encode()) for k, v in fixed.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with self.counted as going_away:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            frames = self.frames(going_away)
            streaming = asyncio.create_task(_write(frames, send))
            watching = asyncio.create_task(client_left(receive))
            await asyncio.wait({streaming, watching}, return_when=asyncio.FIRST_COMPLETED)
            ended = _finished(streaming)
            for task in (streaming, watching):
                task.cancel()
            results = await asyncio.gather(streaming, watching, return_exceptions=True)
            await frames.aclose()
            if not ended:
                await self.abandoned()
            failure = results[0]
            if isinstance(failure, Exception) and not isinstance(failure, OSError):
                raise failure


async def _write(frames: AsyncGenerator[bytes, None], send: Send) -> bool:
    """Whether every frame reached the client (False: it went away under a write)."""
    try:
        async for chunk in frames:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except OSError:
        return False
    return True


def _finished(streaming: asyncio.Task[bool]) -> bool:
    if not streaming.done() or streaming.cancelled() or streaming.exception() is not None:
        return False
    return streaming.result()


async def client_left(receive: Receive) -> None:
    """Returns when the client has gone away (its ``http.disconnect``)."""
    while (await receive())["type"] != "http.disconnect":
        pass
