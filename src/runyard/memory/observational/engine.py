"""``ObservationalMemory``: when observation runs, one observer per thread, and the tasks it owns.

Async buffering (seeds/memory-system.md): after each save a background job observes the new
messages once they reach ``buffer_tokens`` (leaving the newest ``retain_tokens`` raw) and keeps
the result in an ``ObservationBuffer`` without touching the log. When the unobserved messages
pass the threshold, the buffered chunks are activated, a single compare-and-set write with no
model call, by the job itself or at the start of the next run, whichever comes first. So the raw
block stays under the threshold and no run waits for the observer. Only when the buffer does
not cover enough (the job is still running, it failed, or another process took the chain) does
a run wait at its start: for the running job first, then for an observation of its own.

One job per thread at a time: a job in flight absorbs later saves (it runs once more when one
arrived meanwhile), and a per-thread lock keeps the waiting path and the job apart.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable

from runyard.memory.observational.buffer import ObservationBuffer
from runyard.memory.observational.config import ObservationalConfig
from runyard.memory.observational.log_format import render_block
from runyard.memory.observational.observation_log import LogSnapshot, ObservationLog, count_tokens
from runyard.messages import AgentMessage, CustomMessage
from runyard.models import resolve_model
from runyard.runtime import AgentModel, MemoryScope
from runyard.storage import Store

__all__ = ["ObservationalMemory"]

log = logging.getLogger(__name__)

_SHOWN_LIMIT = 1024


class ObservationalMemory:
    """The observation tier of ``Memory``: prompt block, raw window, background observation."""

    def __init__(self, store: Store, config: ObservationalConfig) -> None:
        self.config = config
        self.log = ObservationLog(store, config)
        self.buffer = ObservationBuffer()
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
        self.waits = 0
        """Runs that had to wait for an observation before their first model call."""

    async def prompt_block(self, scope: MemoryScope, model: AgentModel) -> str | None:
        """The observation block for the system prompt, with the raw block under its threshold."""
        snapshot = await self._settle(scope, model)
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

    def after_save(self, scope: MemoryScope, model: AgentModel) -> None:
        """Buffer in the background (a job already running checks once more)."""
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

    async def _job(self, scope: MemoryScope, model: AgentModel) -> None:
        while True:
            self._again.discard(scope)
            async with self._lock(scope):
                await self._attempt(self._background(scope, model.using(self._model)))
            if scope not in self._again:
                # Leave the registry now, not when the task object finishes a moment later, so
                # a save arriving in between starts a fresh job instead of being absorbed.
                self._jobs.pop(scope, None)
                return

    def _forget(self, scope: MemoryScope, task: asyncio.Task[None]) -> None:
        if self._jobs.get(scope) is task:
            del self._jobs[scope]

    async def _background(self, scope: MemoryScope, model: AgentModel) -> None:
        """Buffer the new messages, activate the buffer past the threshold, then reflect."""
        snapshot = await self.log.snapshot(scope)
        chain = self.buffer.chain(scope, snapshot.position)
        known = [*snapshot.observations, *(o for chunk in chain for o in chunk.observations)]
        after = chain[-1].until if chain else snapshot.position
        chunk = await self.log.buffer(scope, model, after, known)
        if chunk is not None:
            current = await self.log.snapshot(scope)
            self.buffer.add(scope, current.position, chunk)
        await self._activate_if_due(scope)
        await self.log.reflect(scope, model)

    async def _settle(self, scope: MemoryScope, model: AgentModel) -> LogSnapshot:
        """The log as a run starts with it: activated past the threshold, waited for past
        ``block_tokens`` (the last resort)."""
        snapshot, pending = await self._activate_if_due(scope)
        if pending > self.config.block_tokens:
            # Once more: the background job may have activated the buffer since it was read.
            snapshot, pending = await self._activate_if_due(scope)
        if pending <= self.config.block_tokens:
            return snapshot
        self.waits += 1
        job = self._jobs.get(scope)
        if job is not None:
            await asyncio.wait([job])  # joins the job; cancelling this run leaves it running
        async with self._lock(scope):
            snapshot, pending = await self._activate_if_due(scope)
            if pending > self.config.block_tokens:
                chosen = model.using(self._model)
                await self._attempt(self._observe_now(scope, chosen))
                snapshot = await self.log.snapshot(scope)
        return snapshot

    async def _activate_if_due(self, scope: MemoryScope) -> tuple[LogSnapshot, int]:
        """Past the threshold, activate the buffered chain; the log and the unobserved tokens."""
        snapshot = await self.log.snapshot(scope)
        pending = count_tokens(await self.log.unobserved(scope, snapshot.cursor))
        if pending <= self.config.observer_message_tokens:
            return snapshot, pending
        chain = self.buffer.chain(scope, snapshot.position)
        if not chain:
            return snapshot, pending
        if not await self.log.activate(scope, chain):
            self.buffer.drop(scope)  # another writer moved the cursor: the chain is stale
            return snapshot, pending
        self.buffer.discard(scope, len(chain))
        snapshot = await self.log.snapshot(scope)
        return snapshot, count_tokens(await self.log.unobserved(scope, snapshot.cursor))

    async def _observe_now(self, scope: MemoryScope, model: AgentModel) -> None:
        await self.log.observe(scope, model)
        await self.log.reflect(scope, model)

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
