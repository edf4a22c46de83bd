"""A local HTTP server for the ``http_request`` tests, on ``asyncio.start_server`` (127.0.0.1).

It records every request it gets and answers with what the test set (``respond``), with or without
a ``Content-Length``; ``hang()`` makes it take requests and never answer, until the test ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class HttpTarget:
    def __init__(self) -> None:
        self.port = 0
        self.requests: list[Received] = []
        self.received = asyncio.Event()
        self._release = asyncio.Event()
        self._hang = False
        self._body = b'{"ok": true}'
        self._content_type = "application/json"
        self._declare_length = True
        self._status = "200 OK"
        self._extra_headers = ""

    def url(self, host: str, path: str = "/") -> str:
        return f"http://{host}:{self.port}{path}"

    def respond(
        self,
        body: bytes,
        content_type: str = "text/plain",
        *,
        declare_length: bool = True,
        status: str = "200 OK",
        extra_headers: str = "",
    ) -> None:
        self._body, self._content_type, self._declare_length = body, content_type, declare_length
        self._status, self._extra_headers = status, extra_headers

    def hang(self) -> None:
        """Take every later request and never answer it (until the server stops)."""
        self._hang = True

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        request_line, *lines = head.decode().split("\r\n")
        headers = {
            k.strip().lower(): v.strip()
            for k, _, v in (line.partition(":") for line in lines if line)
        }
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        method, path, _ = request_line.split(" ", 2)
        self.requests.append(Received(method, path, headers, body))
        self.received.set()
        if self._hang:
            await self._release.wait()
        else:
            writer.write(self._response())
            await writer.drain()
        writer.close()

    def _response(self) -> bytes:
        length = f"Content-Length: {len(self._body)}\r\n" if self._declare_length else ""
        head = f"HTTP/1.1 {self._status}\r\nContent-Type: {self._content_type}\r\n{length}"
        head += self._extra_headers
        return f"{head}Connection: close\r\n\r\n".encode() + self._body

    def stop(self) -> None:
        self._release.set()


@asynccontextmanager
async def http_target() -> AsyncIterator[HttpTarget]:
    target = HttpTarget()
    server = await asyncio.start_server(target.handle, "127.0.0.1", 0)
    target.port = server.sockets[0].getsockname()[1]
    try:
        async with server:
            yield target
            target.stop()
    finally:
        target.stop()
