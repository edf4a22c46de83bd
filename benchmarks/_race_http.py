"""Just enough HTTP/1.1 and SSE for the service race's load client, over asyncio streams.

One connection per request (``Connection: close``), a chunked or length-delimited body, and
SSE frames (``event:``/``id:``/``data:`` lines, ``\\n`` or ``\\r\\n`` line ends). httpx would be
the bottleneck long before either server is (sse_common.py says the same).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

__all__ = ["Frame", "Response", "frames", "json_call", "request"]

_HOST = "127.0.0.1"


@dataclass
class Response:
    """A response whose status line and headers have been read; its body is still to come."""

    status: int
    chunked: bool
    length: int | None
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def pieces(self) -> AsyncIterator[bytes]:
        """The body, de-chunked, piece by piece as it arrives."""
        if self.chunked:
            while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
                yield (await self.reader.readexactly(size + 2))[:-2]
        elif self.length is not None:
            yield await self.reader.readexactly(self.length)
        else:
            while piece := await self.reader.read(65536):
                yield piece

    async def body(self) -> bytes:
        return b"".join([piece async for piece in self.pieces()])

    def close(self) -> None:
        self.writer.close()


async def request(
    port: int, method: str, path: str, body: Any = None, headers: str = ""
) -> Response:
    """Send one request (``body`` as JSON when given) and read the response's head."""
    reader, writer = await asyncio.open_connection(_HOST, port)
    payload = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: {_HOST}\r\nConnection: close\r\n{headers}"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
    writer.write(head.encode() + b"\r\n" + payload)
    raw = (await reader.readuntil(b"\r\n\r\n")).lower()
    status = int(raw.split(b" ", 2)[1])
    length = next(
        (int(line[15:]) for line in raw.split(b"\r\n") if line.startswith(b"content-length:")),
        None,
    )
    return Response(status, b"transfer-encoding: chunked" in raw, length, reader, writer)


async def json_call(port: int, method: str, path: str, body: Any = None) -> Any:
    """A request whose JSON answer is returned; any status but 200 is an error."""
    response = await request(port, method, path, body)
    try:
        data = await response.body()
    finally:
        response.close()
    if response.status != 200:
        raise RuntimeError(f"{method} {path}: HTTP {response.status}: {data[:300]!r}")
    return json.loads(data)


@dataclass(frozen=True)
class Frame:
    """One SSE frame: its ``event`` (``message`` when unnamed), ``id`` and ``data`` lines."""

    event: str
    id: str | None
    data: bytes


async def frames(response: Response) -> AsyncIterator[Frame]:
    """The response's SSE frames that carry data, as they arrive (comments and ``retry:`` skipped)."""
    buffer = b""
    async for piece in response.pieces():
        buffer = (buffer + piece).replace(b"\r\n", b"\n")
        *complete, buffer = buffer.split(b"\n\n")
        for block in complete:
            frame = _parse(block)
            if frame is not None:
                yield frame


def _parse(block: bytes) -> Frame | None:
    event, id_, data = "message", None, []
    for line in block.split(b"\n"):
        field, _, value = line.partition(b":")
        value = value.removeprefix(b" ")
        if field == b"data":
            data.append(value)
        elif field == b"event":
            event = value.decode()
        elif field == b"id":
            id_ = value.decode()
    return Frame(event, id_, b"\n".join(data)) if data else None
