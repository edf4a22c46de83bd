"""``RunControl``: how one run is aborted, promptly, from ``agent.abort()`` or an external signal.

Abort cancels the task that drives the run (the caller's task for ``generate``, the producer
task for ``stream``), so an in-flight model call or tool stops at its next await. The run then
recognises its own cancellation with ``consume_abort`` and ends as ``cancelled``; a cancellation
that did not come from an abort is left to propagate.
"""

from __future__ import annotations

import asyncio
import contextlib

from runyard.errors import RunAbortedError

__all__ = ["RunControl"]


class RunControl:
    def __init__(self, external: asyncio.Event | None = None) -> None:
        self.signal = asyncio.Event()
        self._task: asyncio.Task[object] | None = None
        self._pending_cancel = False
        self._watcher: asyncio.Task[None] | None = None
        if external is not None:
            if external.is_set():
                self.signal.set()
            else:
                self._watcher = asyncio.create_task(self._follow(external))

    @property
    def aborted(self) -> bool:
        return self.signal.is_set()

    def bind(self, task: asyncio.Task[object] | None) -> None:
        """Attach the task that drives the run; an abort requested earlier takes effect now."""
        self._task = task

    def abort(self) -> None:
        if self.signal.is_set():
            return
        self.signal.set()
        task = self._task
        if task is not None and not task.done() and task is not asyncio.current_task():
            self._pending_cancel = True
            task.cancel()

    def check(self) -> None:
        """Raise ``RunAbortedError`` if the run was aborted (used at loop and window boundaries)."""
        if self.signal.is_set():
            raise RunAbortedError()

    def consume_abort(self) -> bool:
        """After a ``CancelledError``: True (and the cancellation undone) if it was our abort."""
        if not (self.signal.is_set() and self._pending_cancel):
            return False
        self._pending_cancel = False
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        return True

    async def close(self) -> None:
        self._task = None
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
            self._watcher = None

    async def _follow(self, external: asyncio.Event) -> None:
        await external.wait()
        self.abort()
