"""An event loop in a thread of its own, for the MCP connections.

``ToolBuilder.build`` is synchronous and may run on the service's own event loop, yet it must
wait for a server's tool listing; and the ``mcp`` client keeps each connection inside task
groups that one long-lived task has to own. Both are met by running the connections on a
separate loop: ``build`` blocks on it (``run_blocking``), tools await it from any loop (``run``),
and a failing transport cancels its owner task there, never a run's task.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["LoopThread"]

T = TypeVar("T")


class LoopThread:
    """A started event loop on a daemon thread; ``stop`` ends it and joins the thread."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run_blocking(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop and wait for it here (never call this on the loop)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the loop and await it from the caller's loop; cancelling the
        caller cancels it there."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self.loop))

    async def stop(self) -> None:
        """Stop the loop once what runs on it now has been given its turn, and close it."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        await asyncio.to_thread(self._thread.join)
        self.loop.close()
