"""``GraphRuntime``: a run segment of a LangGraph agent, driven as runyard drives its own loop.

It is an ``AgentRuntime`` whose loop is a LangGraph graph: the run's start (memory's history and
context, the user's message), its endings (success, suspended, failed, cancelled), its
checkpoints, memory saving, telemetry span and chunks are the runtime's own, so the service,
the event log and every face treat a LangGraph agent's run as any other. What differs is the
loop: the graph is streamed (``messages``, ``updates``, ``custom``, ``tasks``, subgraphs
included) and each part becomes the chunks runyard's loop would have sent (``GraphStream``); the
graph's checkpoints travel in the run's state (``runtime.graph.checkpoint``), so an interrupt
suspends the run durably and an answer — or a takeover after a crash — carries the graph on
from there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError
from langgraph.pregel import Pregel
from langgraph.types import Command, StreamMode

from runyard.errors import MaxIterationsError, ResumeError
from runyard.messages import AgentMessage, AnyMessage, ToolCallPart
from runyard.runtime.graph.checkpoint import export_checkpoints, import_checkpoints
from runyard.runtime.graph.messages import to_langchain
from runyard.runtime.graph.stream import GraphStream
from runyard.runtime.graph.tools import GraphToolRun
from runyard.runtime.journal import JournalCall
from runyard.runtime.loop import AgentRuntime
from runyard.runtime.middleware import MiddlewareStack
from runyard.runtime.pending_calls import unexecuted_entry
from runyard.runtime.state import AgentState, GraphState, PendingToolCall
from runyard.tools import Tool

__all__ = ["GraphRuntime", "GraphSource"]

_STREAM_MODES: list[StreamMode] = ["messages", "updates", "custom", "tasks"]


class GraphSource(Protocol):
    """The compiled graph an agent runs with these tools (its own plus memory's) and its
    middleware (around the model calls the graph makes through runyard's model layer)."""

    def graph(
        self, tools: Mapping[str, Tool], middleware: MiddlewareStack
    ) -> Pregel[Any, Any, Any, Any]: ...

    def graph_input(self, messages: list[Any]) -> Any:
        """What the graph is invoked with for a conversation of LangChain ``messages``."""
        ...


class GraphRuntime(AgentRuntime):
    """One segment of a run on ``source``'s graph (the rest of the arguments as
    ``AgentRuntime``'s)."""

    def __init__(self, source: GraphSource, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._source = source
        self._graph_state = GraphState()

    def snapshot(self) -> AgentState:
        state = super().snapshot()
        state.graph = self._graph_state.model_copy()
        return state

    def _restore(self, state: AgentState) -> None:
        super()._restore(state)
        if state.graph is None:
            raise ResumeError("The run's state holds no graph: it was not a LangGraph agent's")
        self._graph_state = state.graph

    async def _loop(self) -> None:
        messages = to_langchain(self.list.for_llm(), self._instructions)
        await self._drive(self._source.graph_input(messages), {})

    async def _resume(
        self, pending: dict[str, PendingToolCall], tool_call_id: str, data: Any
    ) -> None:
        self._begin()
        await self._attach_memory()
        interrupt_id = self._graph_state.interrupts.get(tool_call_id)
        if interrupt_id is None:
            raise ResumeError(f"No tool call found for toolCallId: {tool_call_id}")
        await self._drive(Command(resume={interrupt_id: data}), {})

    async def _recover(
        self, pending: dict[str, PendingToolCall], calls: Mapping[str, JournalCall]
    ) -> None:
        """Carry the graph on from its last super-step: LangGraph runs that step's unfinished
        tasks again; their tools replay what the journal settled (``GraphToolRun``)."""
        self._begin()
        await self._attach_memory()
        await self._drive(None, calls)

    async def _drive(self, graph_input: Any, journaled: Mapping[str, JournalCall]) -> None:
        saver = InMemorySaver()
        import_checkpoints(saver, self.run_id, self._graph_state.checkpoints)
        graph = self._source.graph(self._tools, self.spec.middleware)
        graph = graph.copy(update={"checkpointer": saver})
        tools = GraphToolRun(self._runner(), journaled, self.files)
        tools.bind()
        stream = GraphStream(self.list, self.sink, self.control)
        config: Any = {
            "configurable": {"thread_id": self.run_id},
            # create_agent's step is a model call and a tool call: two super-steps.
            "recursion_limit": 2 * self.max_iterations + 1,
        }
        before = self.usage

        def progress() -> AgentState:
            self.usage = before + stream.usage
            self._graph_state = GraphState(checkpoints=export_checkpoints(saver, self.run_id))
            # The calls the graph's next step runs are pending in it, as in runyard's loop's
            # progress: a takeover resumes after their tool-call events (``plan_takeover``).
            opened = _open_calls(self.list.all)
            self.pending = {c.tool_call_id: unexecuted_entry(c) for c in opened}
            try:
                return self.snapshot()
            finally:
                self.pending = {}

        parts = graph.astream(graph_input, config, stream_mode=_STREAM_MODES, subgraphs=True)
        try:
            async for namespace, mode, data in parts:
                if await stream.take(namespace, mode, data) and self.journal is not None:
                    # A super-step of the graph ended: its checkpoint is the run's progress,
                    # journaled with the next tool call (a run that calls none has nothing a
                    # takeover must not repeat: it starts over).
                    tools.progress = progress
        except GraphRecursionError as exc:
            raise MaxIterationsError(self.max_iterations) from exc
        finally:
            self.usage = before + stream.usage
        if stream.questions:
            self._graph_state = GraphState(
                checkpoints=export_checkpoints(saver, self.run_id),
                interrupts={q.tool_call_id: interrupt_id for q, interrupt_id in stream.questions},
            )
            await self._end_suspended({q.tool_call_id: q for q, _ in stream.questions})
            return
        await self._end_success()


def _open_calls(messages: list[AnyMessage]) -> list[ToolCallPart]:
    """The calls of the newest response that made any whose results are not in yet."""
    answered: set[str] = set()
    for message in reversed(messages):
        if not isinstance(message, AgentMessage):
            continue
        answered.update(r.tool_call_id for r in message.tool_results)
        if message.tool_calls:
            return [c for c in message.tool_calls if c.tool_call_id not in answered]
    return []
