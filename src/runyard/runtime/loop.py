"""``AgentRuntime``: one run segment (a fresh run or a resume) of the tool-calling loop.

The loop writes chunks into a sink. ``generate`` collects them into a result and ``stream``
queues them for the caller, so both modes share this one implementation. Each feature lives in
its own module (the model step, tool windows, pending calls, message list, checkpoints,
memory); the loop only calls them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from runyard.errors import MaxIterationsError, RunAbortedError
from runyard.messages import AgentMessage, ToolCallPart, ToolResultPart
from runyard.models import FileReader, ModelTurn, ToolSpec, Usage
from runyard.runtime.agent_model import AgentModel
from runyard.runtime.chunks import (
    ChunkSink,
    ErrorChunk,
    FinishChunk,
    MessageChunk,
    ToolCallSuspendedChunk,
    ToolResultChunk,
)
from runyard.runtime.control import RunControl
from runyard.runtime.events import AgentEvent
from runyard.runtime.journal import JournalCall, RunJournal
from runyard.runtime.memory import MemoryScope
from runyard.runtime.message_list import AgentMessageList
from runyard.runtime.model_step import ModelStep
from runyard.runtime.orphans import strip_orphaned_tool_messages
from runyard.runtime.output_budget import OutputBudget
from runyard.runtime.pending_calls import (
    recover_calls,
    resume_calls,
    still_pending,
    unexecuted_entry,
)
from runyard.runtime.produced_files import FileKeeper, kept_message
from runyard.runtime.results import SubAgentUsage, ToolCallRecord, total_cost
from runyard.runtime.run_clock import RunClock
from runyard.runtime.spec import RuntimeSpec
from runyard.runtime.state import AgentState, PendingToolCall, RunStatus, open_questions
from runyard.runtime.structured_output import OutputRetry
from runyard.runtime.tool_runner import ToolOutcome, ToolRunner
from runyard.telemetry import NO_TELEMETRY, Telemetry, TelemetrySpan
from runyard.tools import Tool

__all__ = ["AgentRuntime"]

log = logging.getLogger(__name__)


class AgentRuntime:
    def __init__(
        self,
        spec: RuntimeSpec,
        *,
        run_id: str,
        control: RunControl,
        sink: ChunkSink,
        streaming: bool,
        deps: Mapping[str, Any] | None = None,
        telemetry: Telemetry | None = None,
        journal: RunJournal | None = None,
        files: FileReader | None = None,
        produced_files: FileKeeper | None = None,
    ) -> None:
        self.spec = spec
        self.files = files
        """Where the run reads stored files its messages name (``file_id``); None: nowhere."""
        self.produced_files = produced_files
        """Where the large files its model and tools produce are kept before the list or a
        client gets them (``runtime.produced_files``); None: they stay inline."""
        self.journal = journal
        """Where every step is made durable (``runtime.journal``); None: only suspensions are."""
        self.telemetry = telemetry or spec.telemetry
        self.span: TelemetrySpan = NO_TELEMETRY
        """This segment's run span, once it started; model and tool spans are its children."""
        self.deps: Mapping[str, Any] = deps or {}
        self.run_id = run_id
        self.control = control
        self.sink = sink
        self.streaming = streaming
        self.list = AgentMessageList()
        self.status = RunStatus.IDLE
        self.usage = Usage()
        self.sub_agent_usage: list[SubAgentUsage] = []
        self.tool_records: list[ToolCallRecord] = []
        self.pending: dict[str, PendingToolCall] = {}
        self.finish_reason: str | None = None
        self.structured_output: Any = None
        self.error: BaseException | None = None
        self.scope: MemoryScope | None = None
        self.max_iterations = spec.max_iterations
        self.clock = RunClock(spec.timeout_s)
        self.budget = OutputBudget(spec.max_output_tokens)
        self._tools: Mapping[str, Tool] = spec.tools
        self._tool_specs: list[ToolSpec] = []
        self._instructions = spec.instructions
        self._checkpointed = False
        self._agent_model = AgentModel(spec.model, spec.middleware)
        """The model as memory asks it (an observer's call), through the agent's middleware."""

    # -- entry points -------------------------------------------------------------------------

    async def start(
        self, messages: Sequence[AgentMessage], scope: MemoryScope | None, max_iterations: int
    ) -> None:
        self.scope, self.max_iterations = scope, max_iterations
        await self._traced("start", self._start(messages))

    async def resume(self, state: AgentState, tool_call_id: str, data: Any) -> None:
        self._restore(state)
        await self._traced("resume", self._resume(state.pending_tool_calls, tool_call_id, data))

    async def recover(self, state: AgentState, calls: Mapping[str, JournalCall]) -> None:
        """Carry on a run whose process died, from its last progress checkpoint ``state`` and
        the journal's ``calls`` (``runtime.journal``)."""
        self._restore(state)
        await self._traced("recover", self._recover(state.pending_tool_calls, calls))

    def _restore(self, state: AgentState) -> None:
        """Take the run on where ``state`` left it."""
        self.list = AgentMessageList.deserialize(state.message_list)
        self.usage = state.usage
        self.sub_agent_usage = list(state.sub_agent_usage)
        self.max_iterations = state.max_iterations or self.spec.max_iterations
        self.clock = RunClock(self.spec.timeout_s, state.run_seconds)
        if state.thread_id and state.resource_id:
            self.scope = MemoryScope(
                state.thread_id, state.resource_id, state.tenant_id or "default"
            )
        self._checkpointed = True

    def release(self) -> None:
        """Let go of what only the running segment needed: its journal, dependencies and file
        stores. An agent keeps its ended runs for ``get_state``; through these they would keep
        whoever drove them (a service's journal holds the run's segment and its events)."""
        self.journal = None
        self.deps = {}
        self.files = None
        self.produced_files = None

    def snapshot(self) -> AgentState:
        scope = self.scope
        return AgentState(
            run_id=self.run_id,
            status=self.status,
            message_list=self.list.serialize(),
            pending_tool_calls=dict(self.pending),
            usage=self.usage,
            finish_reason=self.finish_reason,
            thread_id=scope.thread_id if scope else None,
            resource_id=scope.resource_id if scope else None,
            tenant_id=scope.tenant_id if scope else None,
            max_iterations=self.max_iterations,
            sub_agent_usage=list(self.sub_agent_usage),
            run_seconds=self.clock.spent,
        )

    # -- the run ------------------------------------------------------------------------------

    async def _traced(self, segment: str, body: Awaitable[None]) -> None:
        """Run the segment inside its run span, which ends with the segment's verdict."""
        if self.telemetry is NO_TELEMETRY:
            # Nobody records spans: building their attributes is measurable on every run.
            await self._guarded(body)
            return
        attributes = {
            "run_id": self.run_id,
            "segment": segment,
            "agent": self.spec.name,
            "model": self.spec.model_label,
        }
        self.span = self.telemetry.start_span("run", self.spec.name, attributes)
        try:
            await self._guarded(body)
        finally:
            ended = {
                "status": self.status.value,
                "finish_reason": self.finish_reason,
                "input_tokens": self.usage.input_tokens,
                "output_tokens": self.usage.output_tokens,
            }
            self.span.end(error=self.error, attributes=ended)

    async def _guarded(self, body: Awaitable[None]) -> None:
        """Run ``body``; turn an abort, a failure or an outside cancellation into the end state."""
        self.control.bind(asyncio.current_task())
        try:
            try:
                async with self.clock.running():
                    await body
            finally:
                # Unbound before any ending runs: an abort from now on must not cancel it.
                self.control.bind(None)
        except asyncio.CancelledError:
            if not self.control.consume_abort():
                self.status = RunStatus.CANCELLED
                raise
            await self._end_aborted()
        except RunAbortedError:
            await self._end_aborted()
        except Exception as exc:
            if self.control.aborted:
                # Whatever broke once the abort was asked for (a connection torn down mid-call,
                # say) is the abort's doing: the run ends cancelled, not failed.
                await self._end_aborted(cause=exc)
            else:
                await self._end_failed(exc)

    async def _start(self, messages: Sequence[AgentMessage]) -> None:
        self._begin()
        await self._attach_memory()
        memory, scope = self.spec.memory, self.scope
        if memory is not None and scope is not None:
            history = await memory.history(scope, messages, model=self._agent_model)
            self.list.add_history(strip_orphaned_tool_messages(history))
        self.list.add_input(messages)
        await self._loop()

    async def _resume(
        self, pending: dict[str, PendingToolCall], tool_call_id: str, data: Any
    ) -> None:
        self._begin()
        await self._attach_memory()
        outcomes, still = await resume_calls(self._runner(), pending, tool_call_id, data)
        await self._settle(outcomes)
        if still:
            await self._end_suspended(still)
            return
        self.pending = {}
        await self._loop()

    def _begin(self) -> None:
        self.status = RunStatus.RUNNING
        self.spec.events.emit(AgentEvent.AGENT_START, self.run_id)
        self.control.check()

    async def _attach_memory(self) -> None:
        memory, scope = self.spec.memory, self.scope
        tools = dict(self.spec.tools)
        if memory is not None and scope is not None:
            context = await memory.context(scope, model=self._agent_model)
            if context.instructions:
                self._instructions = f"{self.spec.instructions}\n\n{context.instructions}"
            tools.update((t.name, t) for t in context.tools)
        self._tools = tools
        self._tool_specs = [ToolSpec(t.name, t.description, t.parameters) for t in tools.values()]

    async def _loop(self) -> None:
        runner = self._runner()
        # One per loop, not kept on the run: its converted messages go when the segment ends.
        model = ModelStep(
            self.spec,
            messages=self.list,
            instructions=self._instructions,
            tool_specs=self._tool_specs,
            budget=self.budget,
            sink=self.sink,
            streaming=self.streaming,
            span=self.span,
            run_id=self.run_id,
            files=self.files,
        )
        for iteration in range(1, self.max_iterations + 1):
            self.control.check()
            self.spec.events.emit(AgentEvent.TURN_START, self.run_id)
            turn = await model.take(iteration, self.usage)
            self.usage += turn.usage
            answer = self._answer(turn)
            retry = answer if isinstance(answer, OutputRetry) else None
            answered = await kept_message(
                retry.message if retry else turn.message, self.produced_files
            )
            # Without middleware the turn's message is the model call's own, held nowhere else.
            (message,) = self.list.add_response(
                [answered], fresh=not self.spec.middleware.middleware
            )
            assert isinstance(message, AgentMessage)
            await self.sink.send(MessageChunk(message))
            self.budget.check(turn, self.usage)
            if retry is not None:
                await self._settle([retry.outcome])
                self._emit_turn_end(message, [retry.outcome])
                continue
            calls = message.tool_calls
            if not calls:
                self.finish_reason = turn.finish_reason
                self.structured_output = answer
                self._emit_turn_end(message, [])
                await self._end_success()
                return
            invalid = message.metadata.get("invalid_tool_args", {})
            windows = await runner.run_windows(calls, invalid, self._progress(calls))
            await self._settle([o for o in windows.outcomes if o.settled])
            if windows.suspended:
                await self._end_suspended(still_pending(windows))
                return
            self._emit_turn_end(message, windows.outcomes)
        raise MaxIterationsError(self.max_iterations)

    def _progress(self, calls: Sequence[ToolCallPart]) -> AgentState | None:
        """The progress checkpoint after a response that made ``calls`` (None: no journal)."""
        if self.journal is None:
            return None
        self.pending = {c.tool_call_id: unexecuted_entry(c) for c in calls}
        try:
            return self.snapshot()
        finally:
            self.pending = {}

    async def _recover(
        self, pending: dict[str, PendingToolCall], calls: Mapping[str, JournalCall]
    ) -> None:
        """Settle the calls of the last step (replayed, run again or interrupted), then loop."""
        self._begin()
        await self._attach_memory()
        outcomes, windows = await recover_calls(self._runner(), pending, calls)
        await self._settle(outcomes)
        if windows.suspended:
            await self._end_suspended(still_pending(windows))
            return
        await self._loop()

    def _runner(self) -> ToolRunner:
        return ToolRunner(
            tools=self._tools,
            run_id=self.run_id,
            scope=self.scope,
            control=self.control,
            events=self.spec.events,
            sink=self.sink,
            concurrency=self.spec.tool_call_concurrency,
            deps=self.deps,
            telemetry=self.span,
            tool_timeout=self.spec.tool_timeout_s,
            middleware=self.spec.middleware,
            journal=self.journal,
            produced_files=self.produced_files,
        )

    async def _settle(self, outcomes: Sequence[ToolOutcome]) -> None:
        """Record settled calls: one tool message with their results, then any custom rows."""
        settled = [o for o in outcomes if o.settled]
        if not settled:
            return
        results = AgentMessage(
            role="tool",
            parts=[
                ToolResultPart(
                    tool_call_id=o.call.tool_call_id,
                    tool_name=o.call.tool_name,
                    result=o.output,
                    is_error=o.kind == "error",
                )
                for o in settled
            ],
            created_at=self.list.next_created_at(),
        )
        customs = [o.custom_message for o in settled if o.custom_message is not None]
        stamped_customs = self.list.add_response([results, *customs])[1:]
        for o in settled:
            await self.sink.send(
                ToolResultChunk(o.call.tool_call_id, o.call.tool_name, o.output, o.kind == "error")
            )
            if o.kind == "success":
                self.tool_records.append(
                    ToolCallRecord(
                        o.call.tool_name, o.call.tool_call_id, o.call.args, o.raw, o.transformed
                    )
                )
                self.sub_agent_usage.extend(o.sub_agent_usage)
        for custom in stamped_customs:
            await self.sink.send(MessageChunk(custom))

    def _answer(self, turn: ModelTurn) -> Any:
        """The turn's structured output, or an ``OutputRetry`` when it does not fit (None: none
        is asked for, or the turn calls tools and is no answer yet)."""
        output = self.spec.output
        if output is None or turn.message.tool_calls:
            return None
        return output.check(turn)

    def _emit_turn_end(self, message: AgentMessage, outcomes: Sequence[ToolOutcome]) -> None:
        if not self.spec.events.wants(AgentEvent.TURN_END):
            return
        self.spec.events.emit(
            AgentEvent.TURN_END,
            self.run_id,
            message=message,
            toolResults=[
                {
                    "toolCallId": o.call.tool_call_id,
                    "result": o.output,
                    "isError": o.kind == "error",
                }
                for o in outcomes
                if o.settled
            ],
        )

    # -- endings ------------------------------------------------------------------------------

    async def _end_success(self) -> None:
        await self._save_turn()
        if self._checkpointed:
            await self.spec.checkpoints.complete(self.run_id)
        self.status = RunStatus.SUCCESS
        if self.spec.events.wants(AgentEvent.AGENT_END):
            self.spec.events.emit(
                AgentEvent.AGENT_END, self.run_id, messages=self.list.response_delta()
            )
        await self.sink.send(self._finish(self.finish_reason or "stop"))
        hook, scope = self.spec.on_turn_saved, self.scope
        if hook is not None and scope is not None and self.spec.memory is not None:
            hook(scope, self.list.turn_delta())

    async def _end_suspended(self, pending: dict[str, PendingToolCall]) -> None:
        self.pending = pending
        self.status = RunStatus.SUSPENDED
        self.finish_reason = "tool-calls"
        await self.spec.checkpoints.suspend(self.snapshot())
        self._checkpointed = True
        await self._save_turn()
        for agent_id, entry in open_questions(pending):
            await self.sink.send(
                ToolCallSuspendedChunk(
                    run_id=self.run_id,
                    tool_call_id=entry.tool_call_id,
                    tool_name=entry.tool_name,
                    args=entry.args,
                    payload=entry.payload,
                    resume_schema=entry.resume_schema,
                    agent_id=agent_id,
                )
            )
        await self.sink.send(self._finish("tool-calls"))

    async def _end_aborted(self, cause: Exception | None = None) -> None:
        self.status = RunStatus.CANCELLED
        self.error = RunAbortedError()
        self.error.__cause__ = cause
        await self._end_unfinished()

    async def _end_failed(self, exc: Exception) -> None:
        self.status = RunStatus.FAILED
        self.error = exc
        self.spec.events.emit(AgentEvent.ERROR, self.run_id, message=str(exc), error=exc)
        await self._end_unfinished()

    async def _end_unfinished(self) -> None:
        self.pending = {}
        self.finish_reason = "error"
        try:
            await self._save_turn()
            if self._checkpointed:
                await self.spec.checkpoints.complete(self.run_id)
        except Exception:
            log.exception("run %s: could not store the unfinished turn", self.run_id)
        assert self.error is not None
        await self.sink.send(ErrorChunk(self.error))
        await self.sink.send(self._finish("error"))

    async def _save_turn(self) -> None:
        memory, scope = self.spec.memory, self.scope
        if memory is None or scope is None:
            return
        delta = self.list.turn_delta()
        if delta:
            await memory.save(scope, delta, model=self._agent_model)

    def _finish(self, reason: str) -> FinishChunk:
        return FinishChunk(
            finish_reason=reason,
            usage=self.usage,
            model=self.spec.model_label,
            status=self.status,
            error=self.error,
            structured_output=self.structured_output,
            sub_agent_usage=list(self.sub_agent_usage),
            total_cost=total_cost(self.usage, self.sub_agent_usage),
        )
