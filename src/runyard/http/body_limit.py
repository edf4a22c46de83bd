"""``BodyLimit``: ASGI middleware refusing request bodies over ``max_bytes`` with 413.

It acts before anything parses the body: a declared ``Content-Length`` over the limit is
refused at once, and a streamed body is counted as it arrives and cut off when it overflows.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimit"]


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Wraps an ASGI app; requests whose body exceeds ``max_bytes`` get a JSON 413."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(send)
            return
        received = 0
        overflow = False
        refused = False

        async def counted_receive() -> Message:
            nonlocal received, overflow
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    overflow = True
                    raise _TooLarge()
            return message

        async def guarded_send(message: Message) -> None:
            # The app may turn our exception into an error of its own: replace it with the 413.
            nonlocal refused
            if not overflow:
                await send(message)
            elif not refused:
                refused = True
                await self._refuse(send)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except _TooLarge:
            if not refused:
                await self._refuse(send)

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


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
