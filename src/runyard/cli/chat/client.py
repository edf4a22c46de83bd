"""The HTTP calls ``runyard chat`` makes, with the server's errors turned into ``ServerError``.

One ``ChatClient`` lives for one stretch of async work (httpx clients belong to one event loop).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import httpx

from runyard.cli.chat.feed import EventFeed, RetryListener, RetryPolicy

__all__ = ["ChatClient", "Connection", "ServerError"]

# SSE reads wait for pings (every 15 s); a silent minute means the connection is dead.
_TIMEOUT = httpx.Timeout(10.0, read=60.0)


@dataclass(frozen=True, slots=True)
class Connection:
    """Where the server is and who is talking to it: an API key (``RUNYARD_AUTH=keys``), or a
    tenant and user (``proxy``); none of them for a server with ``RUNYARD_AUTH=none``, which
    refuses identity headers."""

    url: str = "http://127.0.0.1:8400"
    tenant: str | None = None
    user: str | None = None
    api_key: str | None = field(default=None, repr=False)

    def headers(self) -> dict[str, str]:
        """The headers that say who is calling, on every request: only those given."""
        given = {
            "X-Runyard-Tenant": self.tenant,
            "X-Runyard-User": self.user,
            "Authorization": None if self.api_key is None else f"Bearer {self.api_key}",
        }
        return {name: value for name, value in given.items() if value is not None}


class ServerError(Exception):
    """The server refused a request (``status`` is the HTTP status, 0 when unreachable)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ChatClient:
    """Send messages, answer confirmations, cancel runs and follow events of one server."""

    def __init__(
        self, connection: Connection, *, transport: httpx.AsyncBaseTransport | None = None
    ):
        self.connection = connection
        self._http = httpx.AsyncClient(
            base_url=connection.url,
            headers=connection.headers(),
            timeout=_TIMEOUT,
            transport=transport,
        )

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._http.aclose()

    async def send(self, thread_id: str, message: str) -> str:
        """Start a run on the thread; its ``runId``. A busy thread raises ``ServerError(409)``."""
        body = await self._call("POST", f"/v1/chat/{thread_id}", {"message": message})
        return str(body["runId"])

    async def confirm(self, request_id: str, answer: dict[str, Any]) -> None:
        """Answer a ``confirmation-request``."""
        await self._call("POST", f"/v1/confirm/{request_id}", answer)

    async def cancel(self, thread_id: str) -> None:
        """Cancel the thread's active run (a no-op when nothing runs)."""
        await self._call("POST", f"/v1/chat/{thread_id}/cancel", {})

    async def next_event_id(self, thread_id: str) -> int | None:
        """The id the thread's next event will get, or None for a thread the server does not know."""
        try:
            body = await self._call("GET", f"/v1/threads/{thread_id}/messages")
        except ServerError as exc:
            if exc.status == 404:
                return None
            raise
        return int(body["nextEventId"])

    def events(
        self,
        thread_id: str,
        *,
        after: int | None,
        retry: RetryPolicy | None = None,
        on_retry: RetryListener | None = None,
    ) -> EventFeed:
        """The thread's events after the id ``after``, reconnecting as needed."""
        return EventFeed(self._http, thread_id, after=after, retry=retry, on_retry=on_retry)

    async def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        try:
            response = await self._http.request(method, path, json=body)
        except httpx.TransportError as exc:
            raise ServerError(
                0,
                f"Cannot reach runyard at {self.connection.url} ({exc or type(exc).__name__}); "
                "is `runyard serve` running?",
            ) from exc
        if response.status_code >= 400:
            raise ServerError(response.status_code, _error_text(method, path, response))
        return response.json() if response.content else {}


def _error_text(method: str, path: str, response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = response.text
    return f"{method} {path} failed with HTTP {response.status_code}: {_detail(body)}"


def _detail(body: Any) -> str:
    """The human part of an error body: runyard's ``{"error": {"message"}}``, else ``detail``."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and "message" in error:
            return str(error["message"])
        if "detail" in body:
            return str(body["detail"])
    return str(body)
