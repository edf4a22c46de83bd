"""``StreamResult``: a run whose chunks the caller reads while the loop runs in the background."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

from runyard.agent.chunk_buffer import ChunkBuffer
from runyard.runtime import (
    AgentRuntime,
    AgentState,
    ChunkSink,
    GenerateResult,
    ResultCollector,
    RunControl,
    StreamChunk,
)

__all__ = ["DEFAULT_STREAM_BUFFER", "StreamResult"]

DEFAULT_STREAM_BUFFER = 256
"""Chunks a stream holds unread before its run waits for the reader (``Agent(stream_buffer=)``)."""


class _StreamSink:
    """Folds every chunk into the result at once, then queues it for the reader."""

    def __init__(self, collector: ResultCollector, buffer: ChunkBuffer) -> None:
        self._collector = collector
        self._buffer = buffer

    async def send(self, chunk: StreamChunk) -> None:
        self._collector.send_nowait(chunk)
        buffer = self._buffer
        # Most chunks find room: appending them at once saves a coroutine per chunk.
        if buffer.has_room:
            buffer.send_nowait(chunk)
        else:
            await buffer.send(chunk)

    def send_nowait(self, chunk: StreamChunk) -> None:
        self._collector.send_nowait(chunk)
        self._buffer.send_nowait(chunk)


class StreamResult:
    """Iterate it for the chunks (``finish``, or ``error`` then ``finish``, come last).

    At most ``stream_buffer`` chunks wait unread: a slow reader makes the run wait (back-pressure).
    ``result()`` waits for the run and returns the same ``GenerateResult`` that ``generate`` would
    have; awaited while nobody iterates, it gives up the unread chunks so the run can go on to its
    end. The stream is also this run's handle: ``abort()`` and ``state`` concern it alone.
    """

    def __init__(self, control: RunControl, buffer_size: int = DEFAULT_STREAM_BUFFER) -> None:
        self._control = control
        self._buffer = ChunkBuffer(buffer_size)
        self._collector = ResultCollector()
        self.sink: ChunkSink = _StreamSink(self._collector, self._buffer)
        """Where the runtime writes this run's chunks."""
        self._runtime: AgentRuntime | None = None
        self._task: asyncio.Task[None] | None = None
        self._reading = False

    @property
    def run_id(self) -> str:
        assert self._runtime is not None
        return self._runtime.run_id

    @property
    def buffered(self) -> int:
        """How many chunks wait unread right now."""
        return len(self._buffer)

    @property
    def state(self) -> AgentState:
        """A snapshot of this run, while it runs and after it ended."""
        assert self._runtime is not None
        return self._runtime.snapshot()

    def start(self, runtime: AgentRuntime, body: Callable[[], Awaitable[None]]) -> None:
        """Run ``body`` (the runtime's loop) in a task this stream owns."""
        self._runtime = runtime

        async def produce() -> None:
            try:
                await body()
            finally:
                self._buffer.close()

        self._task = asyncio.create_task(produce(), name=f"runyard-stream-{runtime.run_id}")

    async def __aiter__(self) -> AsyncIterator[StreamChunk]:
        self._reading = True
        try:
            buffer = self._buffer
            while True:
                # A chunk that waits already is taken at once: a coroutine per chunk saved.
                chunk = buffer.take()
                if chunk is None and (chunk := await buffer.get()) is None:
                    return
                yield chunk
        finally:
            # A reader that stops early must not leave the run waiting for room forever.
            self._reading = False
            self._buffer.drop()

    async def result(self) -> GenerateResult:
        assert self._task is not None
        assert self._runtime is not None
        if not self._reading:
            self._buffer.drop()
        await asyncio.shield(self._task)
        return self._collector.result(self._runtime)

    def cancel(self) -> None:
        """Cancel the run's task outright, for a reader that is cancelled itself: unlike
        ``abort`` it does not wait for the run to notice, so a run that ignored its abort
        does not outlive whoever drove it."""
        if self._task is not None:
            self._task.cancel()

    def abort(self) -> None:
        """Abort this run only (``agent.abort()`` without a run id aborts every run)."""
        self._control.abort()
