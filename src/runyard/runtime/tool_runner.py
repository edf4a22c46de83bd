"""Running a turn's tool calls: one call at a time, or in windows settled together.

Every failure becomes an error outcome the model will read; nothing here raises except a
cancellation (abort), which must stop the whole window.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic_core import to_jsonable_python

from runyard.errors import ToolError
from runyard.messages import CustomMessage, ToolCallPart
from runyard.runtime.chunks import ChunkSink, ToolEventChunk, ToolExecutionStartChunk
from runyard.runtime.control import RunControl
from runyard.runtime.events import AgentEvent, AgentEventBus
from runyard.runtime.journal import JournalCall, RunJournal
from runyard.runtime.memory import MemoryScope
from runyard.runtime.middleware import MiddlewareStack, ToolCallDone, ToolCallRequest
from runyard.runtime.produced_files import FileKeeper, kept_output
from runyard.runtime.results import AgentToolOutput, SubAgentUsage
from runyard.runtime.state import AgentState, NestedSuspension
from runyard.runtime.sub_agent_suspension import SubAgentSuspend
from runyard.telemetry import NO_TELEMETRY, Telemetry, TelemetrySpan
from runyard.tools import Suspend, Tool, ToolContext, ToolDenied, ToolEvent, resume_validator

__all__ = ["ToolOutcome", "ToolRunner", "WindowsResult", "settled_call"]


@dataclass(slots=True)
class ToolOutcome:
    call: ToolCallPart
    kind: Literal["success", "error", "suspended"]
    output: Any = None
    raw: Any = None
    transformed: bool = False
    custom_message: CustomMessage | None = None
    sub_agent_usage: list[SubAgentUsage] = field(default_factory=list)
    resume_schema: dict[str, Any] | None = None
    nested: NestedSuspension | None = None
    denied: bool = False
    """An error outcome because a person declined the call (telemetry tells the two apart)."""

    @property
    def settled(self) -> bool:
        return self.kind != "suspended"


@dataclass(slots=True)
class WindowsResult:
    outcomes: list[ToolOutcome]
    unexecuted: list[ToolCallPart]

    @property
    def suspended(self) -> bool:
        return any(o.kind == "suspended" for o in self.outcomes)


class ToolRunner:
    def __init__(
        self,
        *,
        tools: Mapping[str, Tool],
        run_id: str,
        scope: MemoryScope | None,
        control: RunControl,
        events: AgentEventBus,
        sink: ChunkSink,
        concurrency: float,
        deps: Mapping[str, Any],
        telemetry: Telemetry,
        middleware: MiddlewareStack,
        tool_timeout: float | None = None,
        journal: RunJournal | None = None,
        produced_files: FileKeeper | None = None,
    ) -> None:
        self.produced_files = produced_files
        """Where the large files a tool returns are kept before its outcome settles (None:
        they stay inline)."""
        self.journal = journal
        """Where each window's calls are recorded before they run, and each outcome as it
        settles (None: the run is not journaled)."""
        self.middleware = middleware
        self.deps = deps
        self.tool_timeout = tool_timeout
        """The agent's limit on each call (``tool_timeout_s``); a tool's own shorter one wins."""
        self.telemetry = telemetry
        self.tools = tools
        self.run_id = run_id
        self.scope = scope
        self.control = control
        self.events = events
        self.sink = sink
        self.loop = asyncio.get_running_loop()
        # None: every call of the turn in one window.
        self.window: int | None = None if math.isinf(concurrency) else int(concurrency)

    async def run_windows(
        self,
        calls: Sequence[ToolCallPart],
        invalid_args: Mapping[str, str],
        progress: AgentState | None = None,
    ) -> WindowsResult:
        """Run ``calls`` in windows; a suspension stops later windows, which stay unexecuted.

        ``progress`` (the run's state after the response that made the calls) is journaled with
        the first window's ``started`` rows, in one write."""
        size = max(self.window or len(calls), 1)
        outcomes: list[ToolOutcome] = []
        for start in range(0, len(calls), size):
            self.control.check()
            window = calls[start : start + size]
            await self._journal_started(window, progress if start == 0 else None)
            if len(window) == 1:
                settled = [await self.execute(window[0], invalid_args=invalid_args)]
            else:
                settled = list(
                    await asyncio.gather(
                        *(self.execute(c, invalid_args=invalid_args) for c in window)
                    )
                )
            outcomes.extend(settled)
            if any(o.kind == "suspended" for o in settled):
                return WindowsResult(outcomes, list(calls[start + size :]))
        return WindowsResult(outcomes, [])

    async def execute(
        self,
        call: ToolCallPart,
        *,
        resume_data: Any = None,
        invalid_args: Mapping[str, str] | None = None,
    ) -> ToolOutcome:
        """Run one call inside its telemetry span; the span ends with the outcome's kind."""
        if self.telemetry is NO_TELEMETRY:
            # Nobody records spans: building their attributes is measurable on every call.
            outcome = await self._execute(call, NO_TELEMETRY, resume_data, invalid_args)
            await self._journal_settled(outcome)
            return outcome
        attributes = {
            "run_id": self.run_id,
            "tool_call_id": call.tool_call_id,
            "arguments": call.args,
        }
        span = self.telemetry.start_span("tool", call.tool_name, attributes)
        try:
            outcome = await self._execute(call, span, resume_data, invalid_args)
        except BaseException as exc:  # an abort cancels the call
            span.end(error=exc)
            raise
        ended: dict[str, object] = {
            "outcome": "denied" if outcome.denied else outcome.kind,
            "tool_known": call.tool_name in self.tools,
        }
        if outcome.kind != "suspended":
            ended["error" if outcome.kind == "error" else "result"] = outcome.output
        span.end(attributes=ended)
        await self._journal_settled(outcome)
        return outcome

    async def _journal_settled(self, outcome: ToolOutcome) -> None:
        if self.journal is not None and outcome.settled:
            await self.journal.record([settled_call(outcome)])

    async def _journal_started(
        self, window: Sequence[ToolCallPart], progress: AgentState | None
    ) -> None:
        if self.journal is None:
            return
        started = [JournalCall(c.tool_call_id, c.tool_name, settled=False) for c in window]
        await self.journal.record(started, state=progress)

    async def _execute(
        self,
        call: ToolCallPart,
        span: TelemetrySpan,
        resume_data: Any,
        invalid_args: Mapping[str, str] | None,
    ) -> ToolOutcome:
        name, call_id = call.tool_name, call.tool_call_id
        self.events.emit(
            AgentEvent.TOOL_EXECUTION_START,
            self.run_id,
            toolCallId=call_id,
            toolName=name,
            args=call.args,
        )
        await self.sink.send(ToolExecutionStartChunk(call_id, name, call.args))
        tool = self.tools.get(name)
        if tool is None:
            return self._error(call, f"Tool {name} not found")
        if invalid_args and call_id in invalid_args:
            return self._error(
                call, f"Invalid tool input: arguments are not valid JSON: {invalid_args[call_id]!r}"
            )
        try:
            args = tool.validate_args(call.args)
        except ValueError as exc:
            return self._error(call, f"Invalid tool input: {exc}")
        request = ToolCallRequest(tool, args, self._context(call, resume_data, span))
        try:
            done = await self._within_limit(tool, request)
        except _TimedOut as exc:
            return self._error(call, f"Tool {name} timed out after {exc.seconds:g}s")
        except ToolError as exc:
            outcome = self._error(call, str(exc))
            outcome.denied = isinstance(exc, ToolDenied)
            return outcome
        except Exception as exc:
            return self._error(call, f"{type(exc).__name__}: {exc}")
        raw, tool = done.raw, done.tool
        if isinstance(raw, Suspend):
            return self._suspended(tool, call, raw)
        if isinstance(raw, SubAgentSuspend):
            return self._sub_agent_suspended(call, raw)
        return await self._kept(self._success(tool, call, raw))

    async def _within_limit(self, tool: Tool, request: ToolCallRequest) -> ToolCallDone:
        """The call through the middleware, under its time limit; ``_TimedOut`` when the limit
        ends it (the tool's own ``TimeoutError`` passes as a failure like another)."""
        timeout = self._timeout(tool)
        if timeout is None:
            # No deadline to keep: its scope is measurable on every call.
            return await self.middleware.call_tool(request)
        deadline = asyncio.timeout(timeout)
        try:
            async with deadline:
                return await self.middleware.call_tool(request)
        except TimeoutError as exc:
            if deadline.expired():
                raise _TimedOut(timeout) from exc
            raise

    def _timeout(self, tool: Tool) -> float | None:
        limits = [t for t in (tool.timeout, self.tool_timeout) if t is not None]
        return min(limits) if limits else None

    def _context(self, call: ToolCallPart, resume_data: Any, span: TelemetrySpan) -> ToolContext:
        def emitted(event: ToolEvent) -> None:
            # Straight into the sink: the event keeps its place among the run's chunks.
            chunk = ToolEventChunk(call.tool_call_id, call.tool_name, event)
            if _running_on(self.loop):
                # An async tool: waiting here would stall the loop the reader needs.
                self.sink.send_nowait(chunk)
            else:
                # A sync tool in a worker thread: hand the chunk to the loop (the sink is not
                # thread-safe) and hold the thread until the stream has room for it.
                asyncio.run_coroutine_threadsafe(self.sink.send(chunk), self.loop).result()

        scope = self.scope
        return ToolContext(
            run_id=self.run_id,
            tool_call_id=call.tool_call_id,
            tool_name=call.tool_name,
            resume_data=resume_data,
            thread_id=scope.thread_id if scope else None,
            resource_id=scope.resource_id if scope else None,
            tenant_id=scope.tenant_id if scope else None,
            abort_signal=self.control.signal,
            on_event=emitted,
            deps=dict(self.deps),
            telemetry=span,
        )

    def _suspended(self, tool: Tool, call: ToolCallPart, raw: Suspend) -> ToolOutcome:
        validator = resume_validator(tool)
        if validator is None:
            return self._error(call, f"Tool {tool.name} has no resume schema")
        if tool.suspend_validator is not None:
            try:
                tool.suspend_validator.validate(raw.payload)
            except ValueError as exc:
                return self._error(call, f"Invalid suspend payload: {exc}")
        return ToolOutcome(
            call,
            "suspended",
            output=to_jsonable_python(raw.payload),
            resume_schema=validator.json_schema,
        )

    def _sub_agent_suspended(self, call: ToolCallPart, raw: SubAgentSuspend) -> ToolOutcome:
        if not raw.state.questions():
            # Nobody could ever answer: the call would wait for good.
            return self._error(
                call, f"Tool {call.tool_name}: its sub-agent suspended without a question"
            )
        nested = NestedSuspension(agent_id=raw.agent_id, state=raw.state)
        return ToolOutcome(call, "suspended", nested=nested)

    def _success(self, tool: Tool, call: ToolCallPart, raw: Any) -> ToolOutcome:
        sub_usage: list[SubAgentUsage] = []
        if isinstance(raw, AgentToolOutput):
            raw, sub_usage = raw.output, raw.sub_agent_usage
        self._ended(call, raw, is_error=False)
        shown = tool.to_model_output(raw) if tool.to_model_output else raw
        custom = tool.to_message(raw) if tool.to_message else None
        return ToolOutcome(
            call,
            "success",
            output=to_jsonable_python(shown, fallback=str),
            raw=raw,
            transformed=tool.to_model_output is not None,
            custom_message=custom,
            sub_agent_usage=sub_usage,
        )

    async def _kept(self, outcome: ToolOutcome) -> ToolOutcome:
        """``outcome`` with the large files of its output stored (``produced_files``), before it
        is journaled or shown; one that cannot be stored makes the call fail."""
        try:
            output = await kept_output(outcome.output, self.produced_files)
        except Exception as exc:
            error = f"Tool {outcome.call.tool_name}: its output could not be stored: {exc}"
            return ToolOutcome(outcome.call, "error", output=error)
        return replace(outcome, output=output)

    def _error(self, call: ToolCallPart, message: str) -> ToolOutcome:
        self._ended(call, message, is_error=True)
        return ToolOutcome(call, "error", output=message)

    def _ended(self, call: ToolCallPart, result: Any, *, is_error: bool) -> None:
        self.events.emit(
            AgentEvent.TOOL_EXECUTION_END,
            self.run_id,
            toolCallId=call.tool_call_id,
            toolName=call.tool_name,
            result=result,
            isError=is_error,
        )


class _TimedOut(Exception):
    """A call ended by its time limit."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def settled_call(outcome: ToolOutcome) -> JournalCall:
    """The journal's row of a settled outcome: what a takeover replays instead of the call."""
    call = outcome.call
    return JournalCall(
        call.tool_call_id,
        call.tool_name,
        settled=True,
        output=outcome.output,
        is_error=outcome.kind == "error",
    )


def _running_on(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:  # a worker thread runs no loop
        return False
