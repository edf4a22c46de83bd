"""Server-Sent Events: the frames, and a response that stops on disconnect or when the server
goes away.

A stream starts with ``retry: <ms>``; then frames are ``id: <n>\\ndata: <json>\\n\\n``, and
events that are ready together go out in one write.
A ``: ping`` comment goes out after ``ping_seconds`` without events, so proxies keep the
connection open.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from runyard.http.event_feed import ServerGoingAway, event_batches
from runyard.http.shutdown import GOING_AWAY, Shutdown
from runyard.observability import Metrics
from runyard.service import EventLog, LiveEvent

__all__ = ["RETRY_MS", "SSE_HEADERS", "EventStreamResponse", "event_frames", "frame"]

SSE_HEADERS: tuple[tuple[str, str], ...] = (
    ("content-type", "text/event-stream"),
    ("cache-control", "no-cache"),
    ("connection", "keep-alive"),
    ("x-accel-buffering", "no"),
)
PING = b": ping\n\n"
RETRY_MS = 1000
"""How long a client waits before reconnecting after the stream drops (sent once, first)."""
RETRY = f"retry: {RETRY_MS}\n\n".encode()


def frame(event: LiveEvent) -> str:
    """One SSE frame for ``event`` (streams send ``event.sse``, these bytes built once)."""
    return event.sse.decode()


async def event_frames(
    events: EventLog,
    thread_id: str,
    cursor: int,
    ping_seconds: float,
    shutdown: Shutdown,
    follow: bool = True,
) -> AsyncIterator[bytes]:
    """``retry:``, then ``event_batches`` as SSE bytes: a frame per event, a ``: ping`` while
    idle, and the ``server-shutdown`` frame when the server goes away."""
    yield RETRY
    batches = event_batches(events, thread_id, cursor, ping_seconds, shutdown, follow)
    async with contextlib.aclosing(batches):
        async for batch in batches:
            if isinstance(batch, ServerGoingAway):
                yield GOING_AWAY
            else:
                yield _frames(batch) if batch else PING


def _frames(batch: list[LiveEvent]) -> bytes:
    # Each event's frame is encoded once for every stream of its thread (``LiveEvent.sse``); a
    # live stream's batch is mostly one event, sent as those very bytes.
    if len(batch) == 1:
        return batch[0].sse
    return b"".join([event.sse for event in batch])


class EventStreamResponse(Response):
    """Streams ``frames`` with the SSE headers until they end or the client goes away."""

    media_type = "text/event-stream"

    def __init__(self, frames: AsyncIterator[bytes], metrics: Metrics | None = None) -> None:
        self.frames = frames
        self.metrics = metrics or Metrics()
        """Counts the stream in ``runyard_streams_open{protocol="sse"}`` while it is open."""
        self.status_code = 200
        self.background = None
        self.raw_headers = [(k.encode(), v.encode()) for k, v in SSE_HEADERS]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with self.metrics.stream_open("sse"):
            await self._respond(receive, send)

    async def _respond(self, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        streaming = asyncio.create_task(self._stream(send))
        watching = asyncio.create_task(_disconnected(receive))
        await asyncio.wait({streaming, watching}, return_when=asyncio.FIRST_COMPLETED)
        for task in (streaming, watching):
            task.cancel()
        results = await asyncio.gather(streaming, watching, return_exceptions=True)
        aclose = getattr(self.frames, "aclose", None)
        if aclose is not None:
            await aclose()
        failure = results[0]
        if isinstance(failure, Exception) and not isinstance(failure, OSError):
            raise failure

    async def _stream(self, send: Send) -> None:
        with contextlib.suppress(OSError):
            async for chunk in self.frames:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            # The frames ended (the server is going away): end the response, free the connection.
            await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
