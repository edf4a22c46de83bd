"""``MultipartFile``: the one file field of a ``multipart/form-data`` body, read as it arrives.

Starlette's form parsing spools every file to a temporary file before the route sees it; an
upload here goes from the socket to the file store piece by piece instead. The parser
(python-multipart) is fed the body's chunks; the data of the field named ``field`` is handed on,
every other part skipped. A body that ends before its closing boundary raises
``TruncatedUpload``, so the store keeps nothing of it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from python_multipart.multipart import MultipartParser, parse_options_header

if TYPE_CHECKING:
    from python_multipart.multipart import MultipartCallbacks

__all__ = ["MalformedUpload", "MultipartFile", "TruncatedUpload", "UploadTooLarge"]


class MalformedUpload(ValueError):
    """The body is not the multipart form it says it is, or lacks its file field."""


class TruncatedUpload(MalformedUpload):
    """The body ended before the multipart form's closing boundary."""


class _Parts:
    """The parser's callbacks: what it reported while it was fed, for the field ``name``."""

    def __init__(self, name: bytes) -> None:
        self.name = name
        self.data: list[bytes] = []
        self.headers: dict[bytes, bytes] = {}
        self.header_name = b""
        self.in_field = False
        self.found = False
        self.filename: str | None = None
        self.ended = False

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": self.headers.clear,
            "on_header_field": self._header_field,
            "on_header_value": self._header_value,
            "on_header_end": self._header_end,
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._part_data,
            "on_part_end": self._part_end,
            "on_end": self._end,
        }

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self.header_name += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        name = self.header_name.lower()
        self.headers[name] = self.headers.get(name, b"") + data[start:end]

    def _header_end(self) -> None:
        self.header_name = b""

    def _headers_finished(self) -> None:
        _, options = parse_options_header(self.headers.get(b"content-disposition", b""))
        if options.get(b"name") == self.name and not self.found:
            self.found = self.in_field = True
            raw = options.get(b"filename")
            self.filename = raw.decode("utf-8", "replace") if raw else None

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self.in_field:
            self.data.append(data[start:end])

    def _part_end(self) -> None:
        self.in_field = False

    def _end(self) -> None:
        self.ended = True


class MultipartFile:
    """Read with ``await start()`` (the file's name, once its part's headers are in), then
    ``async for chunk in chunks()``; ``limit`` bounds the whole body's bytes."""

    def __init__(
        self, content_type: str, body: AsyncIterator[bytes], *, name: str, limit: int
    ) -> None:
        _, options = parse_options_header(content_type)
        boundary = options.get(b"boundary")
        if not boundary:
            raise MalformedUpload("a multipart/form-data body needs a boundary")
        self._body = body
        self._name = name
        self._limit = limit
        self._received = 0
        self._events = _Parts(name.encode())
        self._parser = MultipartParser(boundary, self._events.callbacks())

    async def start(self) -> str | None:
        """Read until the file field's part begins; its filename (None: not given)."""
        while not self._events.found:
            if not await self._feed():
                raise MalformedUpload(f"the form has no field {self._name!r}")
        return self._events.filename

    async def chunks(self) -> AsyncIterator[bytes]:
        """The file field's bytes, then the rest of the body read (and checked) to its end."""
        while True:
            for piece in self._taken():
                yield piece
            if self._events.ended:
                return
            if not await self._feed():
                raise TruncatedUpload("the multipart body ended before its closing boundary")

    def _taken(self) -> list[bytes]:
        data, self._events.data = self._events.data, []
        return data

    async def _feed(self) -> bool:
        """Give the parser the next chunk of the body; False when the body is over."""
        try:
            chunk = await anext(self._body)
        except StopAsyncIteration:
            return False
        self._received += len(chunk)
        if self._received > self._limit:
            raise UploadTooLarge(self._limit)
        try:
            self._parser.write(chunk)
        except Exception as exc:  # python-multipart's MultipartParseError and kin
            raise MalformedUpload(f"the multipart body is malformed: {exc}") from exc
        return True


class UploadTooLarge(ValueError):
    """The whole multipart body passed its limit (the file field and whatever came with it)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the upload is larger than {limit} bytes")
        self.limit = limit
