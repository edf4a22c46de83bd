"""``ObservationalMemory``: when observation runs, one observer per thread, and the tasks it owns.

After each save a background job checks the thread: once unobserved messages reach
``buffer_ratio`` of the threshold it observes the oldest of them, then reflects if the log grew
past its own threshold. So observation is done before the threshold is reached and no turn
waits for it. Only when the unobserved messages pass ``block_ratio`` times the threshold (the
background job fell behind or keeps failing) does a run wait, at its start, for one.

One job per thread at a time: a job in flight absorbs later saves (it runs once more when one
arrived meanwhile), and a per-thread lock keeps the waiting path and the job apart.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable

from pydantic_ai.models import Model

from runyard.memory.observational.config import ObservationalConfig
from runyard.memory.observational.log_format import render_block
from runyard.memory.observational.observation_log import LogSnapshot, ObservationLog, count_tokens
from runyard.messages import AgentMessage, CustomMessage
from runyard.models import resolve_model
from runyard.runtime import MemoryScope
from runyard.storage import Store

__all__ = ["ObservationalMemory"]

log = logging.getLogger(__name__)

_SHOWN_LIMIT = 1024


class ObservationalMemory:
    """The observation tier of ``Memory``: prompt block, raw window, background observation."""

    def __init__(self, store: Store, config: ObservationalConfig) -> None:
        self.config = config
        self.log = ObservationLog(store, config)
        self._model = resolve_model(config.model) if config.model is not None else None
        self._jobs: dict[MemoryScope, asyncio.Task[None]] = {}
        self._again: set[MemoryScope] = set()
        self._locks: weakref.WeakValueDictionary[MemoryScope, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        # What context() showed the model, so history() loads the matching raw window even if
        # a background job moved the cursor in between.
        self._shown: dict[MemoryScope, LogSnapshot] = {}
        self.failures = 0
        """Observer or reflector attempts that raised (each is logged)."""

    async def prompt_block(self, scope: MemoryScope, model: Model) -> str | None:
        """The observation block for the system prompt, after catching up if far behind."""
        await self._catch_up(scope, model)
        snapshot = await self.log.snapshot(scope)
        self._shown.pop(scope, None)
        self._shown[scope] = snapshot
        if len(self._shown) > _SHOWN_LIMIT:  # resumes call context() without history()
            del self._shown[next(iter(self._shown))]
        return render_block(snapshot.observations)

    async def window(self, scope: MemoryScope) -> list[AgentMessage | CustomMessage]:
        """The raw messages the log does not cover, oldest first."""
        snapshot = self._shown.pop(scope, None) or await self.log.snapshot(scope)
        cursor = snapshot.cursor if snapshot.replaces_history else None
        return await self.log.unobserved(scope, cursor)

    def after_save(self, scope: MemoryScope, model: Model) -> None:
        """Check the thread in the background (a job already running checks once more)."""
        if scope in self._jobs:
            self._again.add(scope)
            return
        task = asyncio.create_task(self._job(scope, model), name=f"observe {scope.thread_id}")
        self._jobs[scope] = task
        task.add_done_callback(lambda done: self._forget(scope, done))

    async def wait_idle(self) -> None:
        """Wait until no background job is running."""
        while self._jobs:
            await asyncio.gather(*self._jobs.values(), return_exceptions=True)

    async def aclose(self) -> None:
        """Cancel background jobs and wait for them to end."""
        jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)

    async def _job(self, scope: MemoryScope, model: Model) -> None:
        while True:
            self._again.discard(scope)
            async with self._lock(scope):
                await self._attempt(self._steps(scope, model, self.config.buffer_tokens))
            if scope not in self._again:
                # Leave the registry now, not when the task object finishes a moment later, so
                # a save arriving in between starts a fresh job instead of being absorbed.
                self._jobs.pop(scope, None)
                return

    def _forget(self, scope: MemoryScope, task: asyncio.Task[None]) -> None:
        if self._jobs.get(scope) is task:
            del self._jobs[scope]

    async def _catch_up(self, scope: MemoryScope, model: Model) -> None:
        snapshot = await self.log.snapshot(scope)
        pending = await self.log.unobserved(scope, snapshot.cursor)
        if count_tokens(pending) <= self.config.block_tokens:
            return
        job = self._jobs.get(scope)
        if job is not None:
            await asyncio.wait([job])  # joins the job; cancelling this run leaves it running
        async with self._lock(scope):
            await self._attempt(self._steps(scope, model, self.config.block_tokens))

    async def _steps(self, scope: MemoryScope, model: Model, min_tokens: int) -> None:
        chosen = self._model or model
        await self.log.observe(scope, chosen, min_tokens)
        await self.log.reflect(scope, chosen)

    async def _attempt(self, steps: Awaitable[None]) -> None:
        try:
            await steps
        except asyncio.CancelledError:
            raise
        except Exception:
            self.failures += 1
            log.exception("observational memory step failed; the messages stay raw")

    def _lock(self, scope: MemoryScope) -> asyncio.Lock:
        lock = self._locks.get(scope)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[scope] = lock
        return lock
