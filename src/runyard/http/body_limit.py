"""``BodyLimit``: ASGI middleware refusing request bodies over ``max_bytes`` with 413.

It acts before anything parses the body: a declared ``Content-Length`` over the limit is
refused at once, and a streamed body (``Transfer-Encoding``) is counted as it arrives and cut off
when it overflows. An HTTP/1 request with a declared length, or none (no body), passes untouched:
the server delivers no more than the length declared.

Paths in ``own_limits`` (``POST /v1/files``) are left to their route: an upload is up to
``RUNYARD_MAX_FILE_BYTES``, streamed into the store and counted there, and its 413 names the
field.
"""

from __future__ import annotations

import json
from collections.abc import Collection

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimit"]

_FRAMED_BY_LENGTH = frozenset({"1.0", "1.1"})
"""HTTP versions whose request body without ``Transfer-Encoding`` is exactly ``Content-Length``
bytes, or none (HTTP/2 may stream a body of undeclared length)."""


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Wraps an ASGI app; requests whose body exceeds ``max_bytes`` get a JSON 413."""

    def __init__(self, app: ASGIApp, max_bytes: int, own_limits: Collection[str] = ()) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.own_limits = frozenset(own_limits)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in self.own_limits:
            await self.app(scope, receive, send)
            return
        declared, chunked = _body_framing(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(send)
            return
        if not chunked and scope.get("http_version") in _FRAMED_BY_LENGTH:
            # HTTP/1 reads exactly the declared length (none: no body), so the body cannot
            # outgrow it: no count, and no wrapper around every message of the response (an
            # event stream sends one per batch of events).
            await self.app(scope, receive, send)
            return
        guard = _Guard(self, receive, send)
        try:
            await self.app(scope, guard.receive, guard.send)
        except _TooLarge:
            await guard.refuse_once()

    async def _refuse(self, send: Send) -> None:
        body = json.dumps(
            {
                "error": {
                    "code": "body_too_large",
                    "message": f"the request body is larger than {self.max_bytes} bytes",
                }
            }
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class _Guard:
    """One request's body count, and the one 413 it gets once the count runs over."""

    def __init__(self, limit: BodyLimit, receive: Receive, send: Send) -> None:
        self._limit = limit
        self._receive = receive
        self._send = send
        self._received = 0
        self._overflow = False
        self._refused = False

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request":
            self._received += len(message.get("body", b""))
            if self._received > self._limit.max_bytes:
                self._overflow = True
                raise _TooLarge()
        return message

    async def send(self, message: Message) -> None:
        # The app may turn our exception into an error of its own: replace it with the 413.
        if self._overflow:
            await self.refuse_once()
        else:
            await self._send(message)

    async def refuse_once(self) -> None:
        if not self._refused:
            self._refused = True
            await self._limit._refuse(self._send)


def _body_framing(scope: Scope) -> tuple[int | None, bool]:
    """The declared ``Content-Length`` (None: not given or not a number), and whether the body
    may be of a length not declared (``Transfer-Encoding``, or a length that is not a number)."""
    declared: int | None = None
    unknown = False
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                declared = int(value)
            except ValueError:
                unknown = True
        elif name == b"transfer-encoding":
            unknown = True
    return declared, unknown
