"""Following a thread's event stream: SSE frames to wire events, reconnecting after a drop.

Each reconnect sends ``Last-Event-ID`` = the highest id seen, so the server replays exactly what
was missed; a frame whose id was already seen is dropped all the same, so nothing is shown twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass

import httpx
from pydantic import ValidationError

from runyard.cli.chat.sse import SSEFrame, SSEParser
from runyard.protocol import WireEvent, parse_event

__all__ = ["EventFeed", "FeedError", "ReceivedEvent", "RetryPolicy"]


@dataclass(frozen=True, slots=True)
class ReceivedEvent:
    """One wire event and the id the server gave its frame."""

    id: int
    event: WireEvent


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff between reconnects; ``attempts`` failures in a row give up."""

    first_delay: float = 0.25
    max_delay: float = 5.0
    attempts: int = 8

    def delay(self, failures: int, server_hint_ms: int | None = None) -> float:
        """Seconds to wait after the ``failures``-th failure in a row (the server's ``retry:`` as a floor)."""
        backoff = min(self.max_delay, self.first_delay * 2.0 ** (failures - 1))
        return max(backoff, (server_hint_ms or 0) / 1000)


class FeedError(Exception):
    """The event stream cannot be opened: the server refused it, or stayed unreachable."""


RetryListener = Callable[[int, float, str], None]
"""Called before each reconnect with (failures in a row, delay in seconds, why)."""


class EventFeed:
    """The events of ``thread_id`` after ``after`` (None: the whole history), then live ones.

    ``client`` must carry the base URL and the tenant/user headers. Iterate ``events()``; it only
    ends when the consumer stops, or with ``FeedError``.
    """

    def __init__(
        self,
        client: httpx.AsyncClient,
        thread_id: str,
        *,
        after: int | None = None,
        retry: RetryPolicy | None = None,
        on_retry: RetryListener | None = None,
    ) -> None:
        self._client = client
        self._path = f"/v1/events/{thread_id}"
        self._retry = retry or RetryPolicy()
        self._on_retry = on_retry
        self._server_hint_ms: int | None = None
        self.last_id = after
        """The highest event id seen (the cursor a reconnect resumes from)."""
        self.connections = 0
        """How many times the stream was opened (1 + reconnects)."""

    async def events(self) -> AsyncGenerator[ReceivedEvent, None]:
        """Every new event, in id order, across as many connections as it takes."""
        failures = 0
        while True:
            why = "the server closed the stream"
            try:
                async for received in self._connection():
                    failures = 0
                    yield received
            except httpx.TransportError as exc:
                why = _describe(exc)
            failures += 1
            if failures > self._retry.attempts:
                raise FeedError(
                    f"Lost the event stream ({why}); gave up after {failures - 1} retries."
                )
            delay = self._retry.delay(failures, self._server_hint_ms)
            if self._on_retry is not None:
                self._on_retry(failures, delay, why)
            await asyncio.sleep(delay)

    async def _connection(self) -> AsyncIterator[ReceivedEvent]:
        headers = {"Accept": "text/event-stream"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = str(self.last_id)
        self.connections += 1
        async with self._client.stream("GET", self._path, headers=headers) as response:
            await _raise_for_status(response)
            parser = SSEParser()
            async for chunk in response.aiter_bytes():
                frames = parser.feed(chunk)
                self._server_hint_ms = parser.retry_ms or self._server_hint_ms
                for frame in frames:
                    if (received := self._accept(frame)) is not None:
                        yield received

    def _accept(self, frame: SSEFrame) -> ReceivedEvent | None:
        # Named frames (``event: …``) are server extras this client does not use.
        if frame.event != "message" or frame.id is None or not frame.id.isdigit():
            return None
        event_id = int(frame.id)
        if self.last_id is not None and event_id <= self.last_id:
            return None
        self.last_id = event_id
        try:
            return ReceivedEvent(event_id, parse_event(frame.data))
        except ValidationError:
            # A newer server's event type: skip it rather than stop following the run.
            return None


async def _raise_for_status(response: httpx.Response) -> None:
    if response.status_code < 400:
        return
    body = (await response.aread()).decode(errors="replace")
    if response.status_code >= 500:
        # Worth retrying: a restarting server or a proxy in the way.
        raise httpx.RemoteProtocolError(f"HTTP {response.status_code}", request=response.request)
    raise FeedError(
        f"GET {response.request.url.path} failed with HTTP {response.status_code}: {body}"
    )


def _describe(exc: httpx.TransportError) -> str:
    return str(exc) or type(exc).__name__
