"""Server-Sent Events: the frames, the cursor rule, and a response that stops on disconnect or
when the server goes away.

A stream starts with ``retry: <ms>``; then frames are ``id: <n>\\ndata: <json>\\n\\n``, and
events that are ready together go out in one write.
A ``: ping`` comment goes out after ``ping_seconds`` without events, so proxies keep the
connection open.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from runyard.http.errors import ApiError
from runyard.http.shutdown import GOING_AWAY, Shutdown
from runyard.service import EventLog, LiveEvent

__all__ = [
    "LAST_EVENT_ID",
    "MAX_CURSOR",
    "QUERY_CURSOR",
    "RETRY_MS",
    "SSE_HEADERS",
    "EventStreamResponse",
    "event_frames",
    "frame",
    "replay_cursor",
]

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
LAST_EVENT_ID = "Last-Event-ID"
QUERY_CURSOR = "lastEventId"
MAX_CURSOR = 2**63 - 1
"""The largest cursor: event ids are signed 64-bit integers in the store."""
_DIGITS = re.compile(r"[0-9]{1,19}")


def frame(event: LiveEvent) -> str:
    """One SSE frame for ``event``."""
    return f"id: {event.id}\ndata: {event.json}\n\n"


def replay_cursor(last_event_id: str | None, query: str | None) -> int:
    """The replay cursor: ``Last-Event-ID``, else ``?lastEventId``, else 0 (the whole history).

    An empty value counts as absent; any other value must be ASCII digits for an integer in
    0 … 2^63-1 (the store's id column), else ``invalid_cursor`` (400) names the field.
    """
    for field, value in ((LAST_EVENT_ID, last_event_id), (QUERY_CURSOR, query)):
        if value:
            return _cursor(field, value)
    return 0


def _cursor(field: str, value: str) -> int:
    # ASCII digits only: str.isdigit() and int() also take "²" or "٣", and a header byte 0xB2
    # arrives as "²"; nineteen digits at most keep int() cheap before the range check.
    if _DIGITS.fullmatch(value) is None or int(value) > MAX_CURSOR:
        raise ApiError(400, "invalid_cursor", f"{field} must be an integer from 0 to 2^63-1", field)
    return int(value)


async def event_frames(
    events: EventLog, thread_id: str, cursor: int, ping_seconds: float, shutdown: Shutdown
) -> AsyncIterator[bytes]:
    """``retry:``, stored events after ``cursor``, then live ones, as SSE bytes; pings while idle.

    When the server goes away it sends what the log holds, then the ``server-shutdown`` frame,
    and ends. An interrupted read moved no cursor, so the last reads start where it stopped.
    """
    yield RETRY
    with shutdown.stream():
        async with events.reader(thread_id, after=cursor) as reader:
            with contextlib.suppress(TimeoutError):
                while True:
                    async with shutdown.interruptible():
                        batch = await reader.next(max_wait=ping_seconds)
                    yield _frames(batch) if batch else PING
            while batch := await reader.next(max_wait=0):
                yield _frames(batch)
        yield GOING_AWAY


def _frames(batch: list[LiveEvent]) -> bytes:
    return "".join(map(frame, batch)).encode()


class EventStreamResponse(Response):
    """Streams ``frames`` with the SSE headers until they end or the client goes away."""

    media_type = "text/event-stream"

    def __init__(self, frames: AsyncIterator[bytes]) -> None:
        self.frames = frames
        self.status_code = 200
        self.background = None
        self.raw_headers = [(k.encode(), v.encode()) for k, v in SSE_HEADERS]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
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
