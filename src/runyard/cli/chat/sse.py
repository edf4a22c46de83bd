"""A small incremental Server-Sent Events parser (the WHATWG ``text/event-stream`` rules).

Bytes go in as they arrive, in chunks of any size; complete frames come out. It knows nothing of
HTTP or of runyard's events: ``feed.py`` decides what a frame means.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

__all__ = ["SSEFrame", "SSEParser"]


@dataclass(frozen=True, slots=True)
class SSEFrame:
    """One dispatched event: its ``data`` lines joined by ``\\n``.

    ``id`` is the stream's last event id at dispatch time (the frame's own ``id:`` or an earlier
    one, as the spec says); ``event`` is ``"message"`` unless the frame named another type.
    """

    data: str
    event: str = "message"
    id: str | None = None


class SSEParser:
    """Feed it chunks with ``feed``; call ``close`` at the end of the stream.

    Lines may end in ``\\n``, ``\\r\\n`` or ``\\r``, and a chunk may stop anywhere, even inside a
    UTF-8 sequence or between the ``\\r`` and ``\\n`` of one line ending. Comment lines (``:``…,
    the server's keep-alive pings) are dropped. A frame without ``data`` is not dispatched.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self._started = False
        self._data: list[str] = []
        self._event = ""
        self.retry_ms: int | None = None
        """The reconnection delay the server asked for with ``retry:``, if it did."""
        self.last_event_id: str | None = None
        """The last ``id:`` seen, kept across frames (what a reconnect sends back)."""

    def feed(self, chunk: bytes | str) -> list[SSEFrame]:
        """Frames completed by ``chunk``, in order."""
        text = self._decoder.decode(chunk) if isinstance(chunk, bytes) else chunk
        return self._consume(text, final=False)

    def close(self) -> list[SSEFrame]:
        """Frames completed by the end of the stream (a trailing unterminated frame is dropped)."""
        return self._consume(self._decoder.decode(b"", final=True), final=True)

    def _consume(self, text: str, *, final: bool) -> list[SSEFrame]:
        buffer = self._pending + text
        if not self._started and buffer:
            self._started = True
            buffer = buffer.removeprefix("\ufeff")
        # A chunk ending in "\r" may be half of a "\r\n": keep it back until the next chunk.
        held = "\r" if buffer.endswith("\r") and not final else ""
        lines = buffer[: len(buffer) - len(held)].replace("\r\n", "\n").replace("\r", "\n")
        *complete, rest = lines.split("\n")
        self._pending = rest + held
        return [frame for line in complete if (frame := self._line(line)) is not None]

    def _line(self, line: str) -> SSEFrame | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self.last_event_id = value
        elif name == "retry" and value.isdigit():
            self.retry_ms = int(value)
        return None

    def _dispatch(self) -> SSEFrame | None:
        data, event = self._data, self._event
        self._data, self._event = [], ""
        if not data:
            return None
        return SSEFrame(data="\n".join(data), event=event or "message", id=self.last_event_id)
