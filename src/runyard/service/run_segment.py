"""``RunSegment``: drive one stretch of a run — its first stream, or a resume — to its end.

A segment streams the agent, turns every chunk into wire events on the thread's log, and ends
in one of two ways: the run suspends (confirmations stored, ``confirmation-request`` events,
status ``suspended``; no ``run-finish``), or it finishes (``run-finish`` persisted, *then* the
run row closed, so a run is never reported finished before its last event is durable).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from runyard.agent import StreamResult
from runyard.ids import new_id
from runyard.memory import PlanStore
from runyard.protocol import (
    ConfirmationRequestEvent,
    RunFinishEvent,
    RunFinishPayload,
    RunStartEvent,
    RunStartPayload,
    ThreadTitleUpdatedEvent,
    ThreadTitleUpdatedPayload,
)
from runyard.runtime import PendingSuspend, ToolCallSuspendedChunk, generate_title
from runyard.service.active_run import ORCHESTRATOR_ID, ActiveRun
from runyard.service.chunk_events import ChunkMapper
from runyard.service.confirmation_request import confirmation_payload
from runyard.service.event_log import EventLog, EventWriter
from runyard.service.failed_run import log_failed_run
from runyard.service.tools import tasks_update
from runyard.storage import RunStatus, Store

__all__ = ["RunSegment", "SegmentStart"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SegmentStart:
    """How a segment begins: the first one announces the run; ``title_from`` names the thread."""

    open_stream: Callable[[], Awaitable[StreamResult]]
    message_id: str | None = None
    title_from: str | None = None


_FINAL: dict[str, RunStatus] = {
    "completed": "completed",
    "cancelled": "cancelled",
    "error": "failed",
}


@dataclass(frozen=True, slots=True)
class _Ending:
    status: Literal["completed", "cancelled", "error", "suspended"]
    reason: str | None = None
    error: BaseException | None = None


class RunSegment:
    """One segment of ``run``; ``await segment.run()`` returns when the segment has ended."""

    def __init__(self, run: ActiveRun, start: SegmentStart, store: Store, events: EventLog) -> None:
        self.run = run
        self.start = start
        self.store = store
        self.events = events
        self.mapper = ChunkMapper(run.run_id, ORCHESTRATOR_ID)
        self.suspensions: list[PendingSuspend] = []

    async def drive(self) -> None:
        """Run the segment to its end: suspended, or finished with ``run-finish`` persisted."""
        run = self.run
        async with self.events.writer(run.thread_id) as writer:
            title = self._start_title()
            try:
                if self.start.message_id is not None:
                    writer.emit(self._run_start())
                    await self._restore_tasks(writer)
                try:
                    ending = await self._stream(writer)
                except Exception as exc:
                    ending = _Ending("error", str(exc) or type(exc).__name__, exc)
                if run.lease_lost:
                    logger.warning("run %s: taken over by another process; stopped", run.run_id)
                    return
                if ending.status == "cancelled" and title is not None:
                    # A cancel must end the run now; the thread gets its title on a later run.
                    title.cancel()
                    title = None
                await self._emit_title(writer, title)
                if ending.status == "suspended":
                    await self._suspend(writer)
                else:
                    await self._finish(writer, ending)
            finally:
                if title is not None and not title.done():
                    title.cancel()

    async def _stream(self, writer: EventWriter) -> _Ending:
        stream = await self.start.open_stream()
        async for chunk in stream:
            if self.run.lease_lost:
                continue  # the run is another process's now: drain the aborted stream silently
            if isinstance(chunk, ToolCallSuspendedChunk):
                self.suspensions.append(chunk)
                continue
            for event in self.mapper.map(chunk):
                writer.emit(event)
        return self._ending()

    def _ending(self) -> _Ending:
        mapper, cancel = self.mapper, self.run.cancel_reason
        if mapper.aborted or (cancel is not None and mapper.finish_reason == "error"):
            return _Ending("cancelled", cancel.reason if cancel else "user_cancelled")
        if mapper.error is not None or mapper.finish_reason == "error":
            reason = str(mapper.error) if mapper.error else "the run failed"
            return _Ending("error", reason, mapper.error)
        if self.suspensions:
            return _Ending("suspended")
        return _Ending("completed")

    async def _suspend(self, writer: EventWriter) -> None:
        run = self.run
        waiting = {
            c.tool_call_id for c in await self.store.list_pending_confirmations(run.thread_id)
        }
        for suspension in self.suspensions:
            if suspension.tool_call_id in waiting:
                continue  # asked in an earlier segment and still unanswered
            request_id = new_id("cr")
            payload = confirmation_payload(request_id, suspension)
            await self.store.create_confirmation(
                request_id,
                thread_id=run.thread_id,
                run_id=run.run_id,
                tool_call_id=suspension.tool_call_id,
                payload=payload.model_dump(mode="json"),
            )
            writer.emit(
                ConfirmationRequestEvent(
                    run_id=run.run_id, agent_id=ORCHESTRATOR_ID, payload=payload
                )
            )
        await writer.flush()
        await self.store.update_run_status(run.run_id, "suspended", epoch=run.epoch)

    async def _finish(self, writer: EventWriter, ending: _Ending) -> None:
        run = self.run
        if ending.status == "cancelled":
            for event in self.mapper.cancel_open_calls():
                writer.emit(event)
        assert ending.status != "suspended"
        if ending.status == "error":
            log_failed_run(run, ending.reason, ending.error)
        run.finishing = True
        payload = RunFinishPayload(
            status=ending.status, reason=ending.reason, usage=self.mapper.usage
        )
        writer.emit(RunFinishEvent(run_id=run.run_id, agent_id=ORCHESTRATOR_ID, payload=payload))
        await writer.flush()
        await self.store.close_run(
            run.run_id, _FINAL[ending.status], epoch=run.epoch, reason=ending.reason
        )

    async def _restore_tasks(self, writer: EventWriter) -> None:
        """A thread with a stored plan shows its checklist again at the start of each run."""
        plan = await PlanStore(self.store).get(self.run.owner.scope(self.run.thread_id))
        if plan is not None and plan.tasks:
            writer.emit(tasks_update(self.run.run_id, ORCHESTRATOR_ID, plan))

    def _run_start(self) -> RunStartEvent:
        assert self.start.message_id is not None
        payload = RunStartPayload(message_id=self.start.message_id)
        return RunStartEvent(run_id=self.run.run_id, agent_id=ORCHESTRATOR_ID, payload=payload)

    def _start_title(self) -> asyncio.Task[str | None] | None:
        text = self.start.title_from
        if not text:
            return None
        return asyncio.create_task(generate_title(self.run.agent.title_model, text))

    async def _emit_title(self, writer: EventWriter, task: asyncio.Task[str | None] | None) -> None:
        """Store the generated title and announce it; a failed title never fails the run."""
        if task is None:
            return
        try:
            title = await task
        except Exception:
            logger.exception("thread %s: title generation failed", self.run.thread_id)
            return
        if not title:
            return
        owner = self.run.owner
        stored = await self.store.set_thread_title(
            self.run.thread_id, title, tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
        if stored:
            payload = ThreadTitleUpdatedPayload(title=title)
            writer.emit(
                ThreadTitleUpdatedEvent(
                    run_id=self.run.run_id, agent_id=ORCHESTRATOR_ID, payload=payload
                )
            )
