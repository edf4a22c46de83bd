"""``StreamResult``: a run whose chunks the caller reads while the loop runs in the background."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Final

from runyard.runtime import AgentRuntime, GenerateResult, ResultCollector, RunControl, StreamChunk

__all__ = ["StreamResult"]

_END: Final = object()


class StreamResult:
    """Iterate it for the chunks (``finish``, or ``error`` then ``finish``, come last).

    The run goes on whether or not anyone reads; ``result()`` waits for it and returns the same
    ``GenerateResult`` that ``generate`` would have.
    """

    def __init__(self, control: RunControl) -> None:
        self._control = control
        self._queue: asyncio.Queue[StreamChunk | object] = asyncio.Queue()
        self._collector = ResultCollector()
        self._runtime: AgentRuntime | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def run_id(self) -> str:
        assert self._runtime is not None
        return self._runtime.run_id

    def sink(self, chunk: StreamChunk) -> None:
        """Where the runtime writes; every chunk is both queued and folded into the result."""
        self._collector(chunk)
        self._queue.put_nowait(chunk)

    def start(self, runtime: AgentRuntime, body: Callable[[], Awaitable[None]]) -> None:
        """Run ``body`` (the runtime's loop) in a task this stream owns."""
        self._runtime = runtime

        async def produce() -> None:
            try:
                await body()
            finally:
                self._queue.put_nowait(_END)

        self._task = asyncio.create_task(produce(), name=f"runyard-stream-{runtime.run_id}")

    async def __aiter__(self) -> AsyncIterator[StreamChunk]:
        while True:
            item = await self._queue.get()
            if item is _END:
                return
            yield item  # type: ignore[misc]

    async def result(self) -> GenerateResult:
        assert self._task is not None
        assert self._runtime is not None
        await asyncio.shield(self._task)
        return self._collector.result(self._runtime)

    def cancel(self) -> None:
        """Cancel the run's task outright, for a reader that is cancelled itself: unlike
        ``abort`` it does not wait for the run to notice, so a run that ignored its abort
        does not outlive whoever drove it."""
        if self._task is not None:
            self._task.cancel()

    def abort(self) -> None:
        """Abort this run only (``agent.abort()`` aborts every run of the agent)."""
        self._control.abort()
