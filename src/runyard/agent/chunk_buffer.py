"""``ChunkBuffer``: the bounded queue between a streamed run and its reader.

It is what gives ``agent.stream()`` its back-pressure: once ``limit`` chunks wait unread, the
run's next ``send`` waits until the reader takes one, so a slow reader slows the run instead of
letting the queue grow. Tool events sent from the event loop's thread (``send_nowait``) may pass
the bound, because waiting there would stall the loop itself; the run's next ``send`` then waits
until the reader is back under it. A reader that goes away (``drop``) stops the bound for good:
the run finishes and its chunks are discarded, as nobody is left to read them.
"""

from __future__ import annotations

from collections import deque

from runyard.runtime import StreamChunk
from runyard.runtime.flag import Flag

__all__ = ["ChunkBuffer"]


class ChunkBuffer:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._chunks: deque[StreamChunk] = deque()
        self._readable = Flag()
        self._room = Flag()
        self._room.set()
        self._closed = False
        self._dropped = False

    def __len__(self) -> int:
        return len(self._chunks)

    @property
    def has_room(self) -> bool:
        """True when ``send`` would not wait."""
        return len(self._chunks) < self.limit or self._dropped

    async def send(self, chunk: StreamChunk) -> None:
        """Append ``chunk``, first waiting while ``limit`` chunks are unread."""
        while len(self._chunks) >= self.limit and not self._dropped:
            self._room.clear()
            await self._room.wait()
        self.send_nowait(chunk)

    def send_nowait(self, chunk: StreamChunk) -> None:
        """Append ``chunk`` now; once the buffer is closed or dropped it is discarded."""
        if self._closed or self._dropped:
            return
        self._chunks.append(chunk)
        self._readable.set()

    async def get(self) -> StreamChunk | None:
        """The next chunk; None once the buffer is closed and empty."""
        while not self._chunks:
            if self._closed or self._dropped:
                return None
            self._readable.clear()
            await self._readable.wait()
        return self.take()

    def take(self) -> StreamChunk | None:
        """The next chunk if one waits now (None: none does), without waiting."""
        if not self._chunks:
            return None
        chunk = self._chunks.popleft()
        if len(self._chunks) < self.limit:
            self._room.set()
        return chunk

    def close(self) -> None:
        """The run wrote its last chunk: the reader gets what is left, then the end."""
        self._closed = True
        self._readable.set()

    def drop(self) -> None:
        """Nobody will read any more: discard what waits and never make the run wait again."""
        self._dropped = True
        self._chunks.clear()
        self._room.set()
        self._readable.set()
