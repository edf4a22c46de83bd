"""``RunSegment``: drive one stretch of a run — its first stream, or a resume — to its end.

A segment streams the agent and turns every chunk into wire events on the thread's log. How it
ends is the runtime's verdict on the stream's ``finish`` chunk (plus, for a cancel, the reason
only the service knows: the user, or a shutdown). The run suspends (confirmations stored,
``confirmation-request`` events, status ``suspended``; no ``run-finish``), or it is finished the
one way every run is (``RunFinisher``): every earlier event persisted, then ``run-finish`` stored
in the transaction that closes the row, so a run is never reported finished before its last
event is durable, nor closed without it. Background sub-agents the segment
started are settled before either (awaited, or stopped when the run was cancelled or failed).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic_core import to_jsonable_python

from runyard.agent import StreamResult
from runyard.errors import RunLimitError
from runyard.ids import new_id
from runyard.memory import Plan
from runyard.messages import AgentMessage
from runyard.protocol import (
    ORCHESTRATOR_ID,
    RunResumedEvent,
    RunResumedPayload,
    RunStartEvent,
    RunStartPayload,
    ThreadTitleUpdatedEvent,
    ThreadTitleUpdatedPayload,
    WireEvent,
    event_to_dict,
)
from runyard.runtime import (
    FinishChunk,
    MessageChunk,
    PendingSuspend,
    RunJournal,
    RunStatus,
    StreamChunk,
    ToolCallSuspendedChunk,
)
from runyard.runtime.flag import Flag
from runyard.service.agent_choice import AgentChoice
from runyard.service.event_log import EventLog, EventWriter
from runyard.service.event_log.chunks import ChunkMapper
from runyard.service.runs.active import USER_CANCELLED, ActiveRun
from runyard.service.runs.confirmation_request import confirmation_payload, question_event
from runyard.service.runs.failed import log_failed_run
from runyard.service.runs.finish import RunEnding, RunFinisher, run_usage
from runyard.service.runs.journal import StoreRunJournal
from runyard.service.threads.history import RunFold
from runyard.service.tools import tasks_update
from runyard.storage import OpeningEvent, RunStart, StaleLease, Store, database_unavailable

__all__ = ["RunSegment", "SegmentStart", "log_opening", "run_start"]

logger = logging.getLogger(__name__)

_GOING_ON = (RunStatus.SUCCESS, RunStatus.SUSPENDED)
"""How the orchestrator's stream may end for the run's background tasks to be awaited."""


@dataclass(frozen=True, slots=True)
class SegmentStart:
    """How a segment begins: the first one announces the run; ``title_from`` (the user's first
    message) names the thread.

    ``open_stream`` starts the agent's stream with the segment's journal (``RunJournal``)."""

    open_stream: Callable[[RunJournal], Awaitable[StreamResult]]
    title_from: AgentMessage | None = None
    resumed_after: int | None = None
    """Set for a run taken over after its server died: the ``afterEventId`` of the
    ``run-resumed`` the segment opens with (``run_takeover``)."""
    started: RunStart | None = None
    """What the run's start wrote and read in its transaction (a first segment's,
    ``RunDriver.begin``): its ``run-start``, which the segment shows first; the writer numbers
    on from it without reading the log; the thread's plan is not read again; and a run whose
    events follow the snapshots right away has its snapshot folded as they are stored."""


class RunSegment:
    """One segment of ``run``; ``await segment.drive()`` returns when the segment has ended."""

    def __init__(
        self,
        run: ActiveRun,
        start: SegmentStart,
        store: Store,
        events: EventLog,
        finisher: RunFinisher,
    ) -> None:
        self.run = run
        self.start = start
        self.store = store
        self.events = events
        self.finisher = finisher
        self.mapper = ChunkMapper(run.run_id, ORCHESTRATOR_ID)
        self.suspensions: list[PendingSuspend] = []
        self.finish: FinishChunk | None = None
        self._stream_result: StreamResult | None = None
        self._took = Flag()
        """Set whenever a chunk of the stream was taken (``_taken`` waits on it)."""
        self._folded: RunFold | None = None
        """The run's events folded as stored, when they alone make its snapshot."""

    async def drive(self) -> None:
        """Run the segment to its end: suspended, or finished with ``run-finish`` persisted."""
        run = self.run
        started = self.start.started
        known = None if started is None else started.last_event_id
        async with self.events.writer(run.thread_id, known=known) as writer:
            if started is not None and writer.last_id == started.last_snapshot_event_id:
                self._folded = RunFold(run.thread_id, run.run_id)
                writer.watch(self._folded.add)
            title = self._start_title()
            try:
                if started is not None:
                    await log_opening(writer, run, started)
                if self.start.resumed_after is not None:
                    writer.emit(self._run_resumed(self.start.resumed_after))
                ending = await self._run_to_end(writer)
                if run.lease_lost:
                    logger.warning("run %s: taken over by another process; stopped", run.run_id)
                    return
                if ending is not None and ending.status == "cancelled" and title is not None:
                    # A cancel must end the run now; the thread gets its title on a later run.
                    title.cancel()
                    title = None
                await self._emit_title(writer, title)
                if ending is None:
                    await self._suspend(writer)
                else:
                    await self._finish(writer, ending)
            finally:
                if title is not None and not title.done():
                    title.cancel()
                await run.background.close()

    async def _run_to_end(self, writer: EventWriter) -> RunEnding | None:
        """Stream the agent, then settle its background tasks; the run's ending (None: it
        suspends). A run that goes on (it completed, or it waits for an answer) waits for its
        tasks; one that was cancelled or failed stops them. Either way each task has sent its
        ``agent-completed`` before the run says anything more."""
        self.run.background.attach(self._live(writer))
        failure: Exception | None = None
        try:
            await self._stream(writer)
        except Exception as exc:
            failure = exc
        finish = self.finish
        if failure is not None or finish is None or finish.status not in _GOING_ON:
            self.run.background.cancel()
        await self.run.background.settle()
        if failure is not None:
            return _failed(failure)
        ending = self._ending()
        return ending if ending is None or ending.error is None else _failed(ending.error, ending)

    def _live(self, writer: EventWriter) -> Callable[[WireEvent], None]:
        """``writer.emit`` while the run is this process's (background tasks write through it)."""

        def emit(event: WireEvent) -> None:
            if not self.run.lease_lost:
                writer.emit(event)

        return emit

    async def _stream(self, writer: EventWriter) -> None:
        journal = StoreRunJournal(self.store, self.run, self._taken, writer)
        stream = self._stream_result = await self.start.open_stream(journal)
        try:
            async for chunk in stream:
                self._take(chunk, writer)
        except asyncio.CancelledError:
            stream.cancel()  # the segment is being torn down: the run must not go on alone
            raise

    async def _taken(self) -> None:
        """Return once every chunk the agent sent so far is mapped to events and queued on the
        writer: the reader has taken them all (it maps each as it takes it)."""
        stream = self._stream_result
        while stream is not None and stream.buffered:
            self._took.clear()
            await self._took.wait()

    def _take(self, chunk: StreamChunk, writer: EventWriter) -> None:
        self._took.set()
        if self.run.lease_lost:
            return  # the run is another process's now: drain the aborted stream silently
        if isinstance(chunk, ToolCallSuspendedChunk):
            self.suspensions.append(chunk)
        elif isinstance(chunk, FinishChunk):
            self.finish = chunk
        for event in self.mapper.map(chunk):
            writer.emit(event)
        if isinstance(chunk, MessageChunk | FinishChunk):  # a model call ended, or the stream
            writer.end_of_stream(self.run.run_id, ORCHESTRATOR_ID)

    def _ending(self) -> RunEnding | None:
        """The run's ending, from the runtime's verdict on the finish chunk; None: suspended."""
        finish = self.finish
        if finish is None:
            return RunEnding("error", "the run's stream ended without finishing")
        usage = run_usage(sum((u.usage for u in self.run.background.usage), finish.total_usage))
        match finish.status:
            case RunStatus.SUSPENDED:
                return None
            case RunStatus.SUCCESS if self.run.cancel_reason is not None:
                # Cancelled while the run waited for its background tasks.
                return RunEnding("cancelled", self.run.cancel_reason.reason, usage=usage)
            case RunStatus.SUCCESS:
                return RunEnding("completed", usage=usage, output=_output(finish))
            case RunStatus.CANCELLED:
                cancel = self.run.cancel_reason or USER_CANCELLED
                return RunEnding("cancelled", cancel.reason, usage=usage)
            case _:
                error = finish.error
                reason = _describe(error) if error else "the run failed"
                return RunEnding("error", reason, usage=usage, error=error)

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
            # A sub-agent's question is asked under its own agent id, beside its tool call.
            asker = suspension.agent_id or ORCHESTRATOR_ID
            writer.emit(question_event(run.run_id, asker, payload))
        await writer.flush()
        await self.store.update_run_status(run.run_id, "suspended", epoch=run.epoch)

    async def _finish(self, writer: EventWriter, ending: RunEnding) -> None:
        run = self.run
        if ending.status == "cancelled":
            for event in self.mapper.cancel_open_calls():
                writer.emit(event)
        elif ending.status == "error":
            # A limit (say the run's timeout) can stop a call midway: none is left loading.
            stopped = f"The run ended before this call finished: {ending.reason}"
            for event in self.mapper.cancel_open_calls(stopped):
                writer.emit(event)
        if ending.status == "error":
            log_failed_run(run, ending.reason, ending.error)
        run.finishing = True
        try:
            await self.finisher.finish(
                run.run_id,
                run.thread_id,
                ending,
                epoch=run.epoch,
                writer=writer,
                folded=self._folded,
                # A run's first segment asked nothing: a question suspends it, never finishes it.
                asked=self.start.started is None,
            )
        except StaleLease:
            # Its close was refused, and its run-finish with it: the run is another's to end.
            run.lose_lease()
            logger.warning("run %s: taken over by another process; stopped", run.run_id)

    def _run_resumed(self, after_event_id: int) -> RunResumedEvent:
        payload = RunResumedPayload(after_event_id=after_event_id)
        return RunResumedEvent(run_id=self.run.run_id, agent_id=ORCHESTRATOR_ID, payload=payload)

    def _start_title(self) -> asyncio.Task[str | None] | None:
        opener = self.start.title_from
        if opener is None:
            return None
        return asyncio.create_task(self.run.agent.titles.name(opener))

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


def run_start(run_id: str, message_id: str, choice: AgentChoice) -> OpeningEvent:
    """The ``run-start`` of ``run_id``, which its start stores (``Store.start_run``): it names
    the user's message and, from a catalog, the agent's version and rule."""
    routed = choice if choice.version else None  # from a catalog
    payload = RunStartPayload(
        message_id=message_id,
        agent_id=routed.agent_id if routed else None,
        version=routed.version if routed else None,
        rule_id=routed.rule_id if routed else None,
    )
    event = RunStartEvent(run_id=run_id, agent_id=ORCHESTRATOR_ID, payload=payload)
    return OpeningEvent(event.type, event_to_dict(event))


async def log_opening(writer: EventWriter, run: ActiveRun, started: RunStart) -> None:
    """Show what a run says before its agent does: the ``run-start`` its start stored, then the
    thread's plan (a thread with one shows its checklist again at the start of each run; the
    run's start read it). The first segment says it; an ``api`` replica says it for a run it
    queues, so the worker's segment does not."""
    await writer.adopt(started.opening)
    stored_plan = started.plan
    plan = None if stored_plan is None else Plan.model_validate(stored_plan.data)
    if plan is not None and plan.tasks:
        writer.emit(tasks_update(run.run_id, ORCHESTRATOR_ID, plan))


def _failed(error: BaseException, ending: RunEnding | None = None) -> RunEnding:
    """The ending of a run that failed with ``error`` — unless the database was away: then the
    run is not over, only this driver is, and the error goes up to it (``RunManager``)."""
    if database_unavailable(error):
        raise error
    return ending or RunEnding("error", _describe(error), error=error)


def _describe(error: BaseException) -> str:
    """The ``run-finish`` reason of a failure: a limit's name, else what went wrong."""
    if isinstance(error, RunLimitError):
        return error.reason
    return str(error) or type(error).__name__


def _output(finish: FinishChunk) -> dict[str, Any] | None:
    """The structured output on the run's ``run-finish``, JSON-ready."""
    output = to_jsonable_python(finish.structured_output)
    return output if isinstance(output, dict) else None
