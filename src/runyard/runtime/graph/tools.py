"""runyard's tools as LangChain tools, run by the runyard run that drives the graph.

One set of tool definitions serves both runtimes: a ``RunyardTool`` is a LangChain ``BaseTool``
whose call goes through the run's ``ToolRunner`` — argument validation, ``ToolContext`` and its
dependencies, timeouts, middleware, tool events, large outputs kept as files — exactly as in
runyard's own loop. A failure is an error ``ToolMessage`` (``status="error"``) the model reads.

A call that suspends (an approval gate, a tool's ``Suspend``) becomes LangGraph's
``interrupt()``: the run suspends with the question, and the answer the graph is resumed with
(``Command(resume=...)``) is the tool's ``resume_data`` when it runs again.

The journal makes calls once-only across a crash as in runyard's loop: a call is recorded as
started before it runs — with the run's progress checkpoint, the graph's last super-step, in the
same write — and with its outcome once settled; a run taken over replays a settled call's
outcome instead of running it again, and a call that started but never settled runs again only
when its tool is ``retry_safe``. LangGraph re-runs a super-step's unfinished tasks after a
crash; this is what keeps their tools from running twice.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.config import get_stream_writer
from langgraph.types import interrupt
from pydantic import PrivateAttr

from runyard.messages import ToolCallPart
from runyard.models import FileReader
from runyard.runtime.chunks import StreamChunk
from runyard.runtime.graph.messages import tool_message
from runyard.runtime.journal import INTERRUPTED_TOOL_ERROR, JournalCall
from runyard.runtime.state import AgentState
from runyard.runtime.tool_runner import ToolOutcome, ToolRunner
from runyard.tools import IS_FROM_TOOLKIT, SOURCE_NODE_NAME, Tool

__all__ = [
    "QUESTION_MARK",
    "GraphToolRun",
    "RunyardTool",
    "ToolRunChunk",
    "current_files",
    "langchain_tools",
]

QUESTION_MARK = "runyard_question"
"""The key that marks an interrupt's value as a runyard tool call's question."""

_RUN: ContextVar[GraphToolRun] = ContextVar("runyard_graph_tool_run")


@dataclass(slots=True)
class GraphToolRun:
    """The tool calls of the run segment that drives a graph: its ``runner``, and on a takeover
    what the journal held of the calls (``journaled``)."""

    runner: ToolRunner
    journaled: Mapping[str, JournalCall] = field(default_factory=dict)
    files: FileReader | None = None
    """Where the run reads the stored files its messages name, for its model calls."""
    progress: Callable[[], AgentState] | None = None
    """The run's progress checkpoint since the graph's last super-step, not journaled yet: it
    goes with the next call's ``started`` row, in one write (as runyard's loop journals a
    step's checkpoint with its calls)."""
    outcomes: dict[str, ToolOutcome] = field(default_factory=dict)
    """Every call settled in this segment, by id: what its tool result reports."""

    def bind(self) -> None:
        """Make this the run the tools of the current task (and the graph's tasks) call into."""
        _RUN.set(self)

    async def call(self, tool: Tool, call_id: str, args: dict[str, Any]) -> ToolMessage:
        call = ToolCallPart(tool_call_id=call_id, tool_name=tool.name, args=args)
        outcome = self._replayed(tool, call)
        if outcome is None:
            outcome = await self._run(call, self._runner_in_graph())
        self.outcomes[call_id] = outcome
        return tool_message(call_id, tool.name, outcome.output, is_error=outcome.kind == "error")

    def _runner_in_graph(self) -> ToolRunner:
        """The run's runner for a call the graph's task makes, its chunks (the call's start, its
        events) written on the graph's own stream: so they keep their place among the graph's
        parts, and come from the subgraph that made the call (``GraphStream`` takes them)."""
        try:
            write = get_stream_writer()
        except RuntimeError:  # not inside a graph's task
            return self.runner
        runner = copy.copy(self.runner)
        runner.sink = _GraphStreamSink(write)
        return runner

    async def _run(self, call: ToolCallPart, runner: ToolRunner) -> ToolOutcome:
        if runner.journal is not None:
            progress, self.progress = self.progress, None
            await runner.journal.record(
                [JournalCall(call.tool_call_id, call.tool_name, False)],
                state=progress() if progress is not None else None,
            )
        outcome = await runner.execute(call)
        while outcome.kind == "suspended":
            if outcome.nested is not None:
                return ToolOutcome(
                    call, "error", output=f"Tool {call.tool_name}: a sub-agent cannot suspend here"
                )
            answer = interrupt(
                {
                    QUESTION_MARK: True,
                    "tool_call_id": call.tool_call_id,
                    "tool_name": call.tool_name,
                    "args": call.args,
                    "payload": outcome.output,
                    "resume_schema": outcome.resume_schema,
                }
            )
            outcome = await runner.execute(call, resume_data=answer)
        return outcome

    def _replayed(self, tool: Tool, call: ToolCallPart) -> ToolOutcome | None:
        """The outcome a takeover keeps instead of running the call: settled before the crash,
        or in flight then and not safe to run again."""
        known = self.journaled.get(call.tool_call_id)
        if known is None:
            return None
        if known.settled:
            return ToolOutcome(call, "error" if known.is_error else "success", output=known.output)
        if tool.retry_safe:
            return None
        return ToolOutcome(call, "error", output=INTERRUPTED_TOOL_ERROR.format(name=tool.name))


@dataclass(frozen=True, slots=True)
class ToolRunChunk:
    """A runyard tool call's chunk, written on the graph's stream (a ``custom`` part)."""

    chunk: StreamChunk


class _GraphStreamSink:
    """A sink that writes each chunk on the graph's stream, where the task's writer puts it."""

    def __init__(self, write: Callable[[Any], None]) -> None:
        self._write = write

    async def send(self, chunk: StreamChunk) -> None:
        self._write(ToolRunChunk(chunk))

    def send_nowait(self, chunk: StreamChunk) -> None:
        self._write(ToolRunChunk(chunk))


def current_files() -> FileReader | None:
    """The file store of the run driving the current graph (None: none, or no run)."""
    run = _RUN.get(None)
    return run.files if run is not None else None


class RunyardTool(BaseTool):
    """A runyard ``Tool`` as LangChain sees it. Its ``metadata`` says where it comes from, as
    the catalog marked it (``sourceNodeName``: the catalog entry that built it;
    ``isFromToolkit``), else the tool itself."""

    _tool: Tool = PrivateAttr()

    def __init__(self, tool: Tool) -> None:
        super().__init__(
            name=tool.name,
            description=tool.description,
            args_schema=tool.parameters,
            metadata={
                "sourceNodeName": tool.metadata.get(SOURCE_NODE_NAME, tool.name),
                "isFromToolkit": tool.metadata.get(IS_FROM_TOOLKIT, False),
            },
        )
        self._tool = tool

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if not (isinstance(input, dict) and input.get("type") == "tool_call"):
            raise TypeError(f"Tool {self.name} is called with a tool call (a ToolNode's)")
        run = _RUN.get(None)
        if run is None:
            raise RuntimeError(f"Tool {self.name} runs only inside a runyard run")
        return await run.call(self._tool, input["id"], dict(input.get("args") or {}))

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"Tool {self.name} is asynchronous")


def langchain_tools(tools: Mapping[str, Tool]) -> list[BaseTool]:
    """``tools`` as LangChain tools, in order."""
    return [RunyardTool(t) for t in tools.values()]
