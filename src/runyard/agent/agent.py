"""``Agent``: the public SDK object. It holds the configuration; every run gets a fresh runtime."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, overload

from pydantic import BaseModel
from pydantic_ai.models import Model

from runyard.agent.stream import StreamResult
from runyard.agent.sub_agent import agent_as_tool
from runyard.errors import ConfigurationError, ResumeError
from runyard.ids import new_id
from runyard.messages import AgentMessage, CustomMessage, TextPart
from runyard.models import model_label, resolve_model
from runyard.runtime import (
    AgentEvent,
    AgentEventBus,
    AgentRuntime,
    AgentState,
    CheckpointStore,
    EventHandler,
    GenerateResult,
    InMemoryCheckpointStore,
    MemoryProtocol,
    MemoryScope,
    ResultCollector,
    RunControl,
    RunStateManager,
    RuntimeSpec,
    title_thread,
)
from runyard.tools import Tool, resume_validator, tool

__all__ = ["Agent", "AgentInput", "Method"]

AgentInput = str | AgentMessage | Sequence[AgentMessage]
Method = Literal["generate", "stream"]


class Agent:
    """An agent: a model, instructions and tools, with optional memory and durable checkpoints.

    ``generate`` returns a ``GenerateResult``; ``stream`` returns a ``StreamResult`` to iterate.
    Both run the same loop. A run suspended for an approval (or a tool's ``Suspend``) is carried
    on with ``approve``, ``deny`` or ``resume``, also by another ``Agent`` object (or process)
    that shares the checkpoint store.
    """

    def __init__(
        self,
        name: str,
        model: str | Model,
        instructions: str = "",
        tools: Iterable[Tool | Callable[..., Any]] = (),
        *,
        tool_call_concurrency: float = 1,
        max_iterations: int = 20,
        memory: MemoryProtocol | None = None,
        checkpoint_store: CheckpointStore | None = None,
        output_type: type[BaseModel] | None = None,
        model_settings: Mapping[str, Any] | None = None,
        title_model: str | Model | None = None,
    ) -> None:
        if not name:
            raise ConfigurationError("An agent needs a name")
        if not (math.isinf(tool_call_concurrency) or float(tool_call_concurrency).is_integer()):
            raise ConfigurationError("tool_call_concurrency must be a positive integer or math.inf")
        if tool_call_concurrency < 1:
            raise ConfigurationError("tool_call_concurrency must be a positive integer or math.inf")
        if max_iterations < 1:
            raise ConfigurationError("max_iterations must be at least 1")
        self.name = name
        self.model = resolve_model(model)
        self.model_label = model_label(self.model)
        self.title_model = (
            resolve_model(title_model)
            if title_model is not None
            else (memory.title_model if memory is not None else None) or self.model
        )
        self.instructions = instructions
        self.tools = _tool_map(tools)
        self.memory = memory
        self.events = AgentEventBus()
        if checkpoint_store is None and memory is not None:
            checkpoint_store = memory.checkpoint_store
        self.checkpoints = RunStateManager(
            checkpoint_store if checkpoint_store is not None else InMemoryCheckpointStore()
        )
        self._spec = RuntimeSpec(
            name=name,
            model=self.model,
            model_label=self.model_label,
            instructions=instructions,
            tools=self.tools,
            tool_call_concurrency=tool_call_concurrency,
            max_iterations=max_iterations,
            checkpoints=self.checkpoints,
            events=self.events,
            memory=memory,
            output_type=output_type,
            model_settings=model_settings,
            on_turn_saved=self._schedule_title if memory is not None else None,
        )
        self._active: set[RunControl] = set()
        self._background: set[asyncio.Task[Any]] = set()
        self._last: AgentRuntime | None = None

    # -- runs ---------------------------------------------------------------------------------

    async def generate(
        self,
        input: AgentInput,
        *,
        thread_id: str | None = None,
        resource_id: str | None = None,
        tenant_id: str = "default",
        max_iterations: int | None = None,
        abort_signal: asyncio.Event | None = None,
        run_id: str | None = None,
        deps: Mapping[str, Any] | None = None,
    ) -> GenerateResult:
        """Run to the end (or to a suspension) and return the result; run failures are on it."""
        messages, scope = _messages(input), self._scope(thread_id, resource_id, tenant_id)
        collector, control = ResultCollector(), RunControl(abort_signal)
        runtime = self._runtime(collector, control, streaming=False, run_id=run_id, deps=deps)
        try:
            await runtime.start(messages, scope, max_iterations or self._spec.max_iterations)
        finally:
            await self._release(control)
        return collector.result(runtime)

    async def stream(
        self,
        input: AgentInput,
        *,
        thread_id: str | None = None,
        resource_id: str | None = None,
        tenant_id: str = "default",
        max_iterations: int | None = None,
        abort_signal: asyncio.Event | None = None,
        run_id: str | None = None,
        deps: Mapping[str, Any] | None = None,
    ) -> StreamResult:
        """Start a run in the background and return its chunk stream at once."""
        messages, scope = _messages(input), self._scope(thread_id, resource_id, tenant_id)
        control = RunControl(abort_signal)
        result = StreamResult(control)
        runtime = self._runtime(result.sink, control, streaming=True, run_id=run_id, deps=deps)
        limit = max_iterations or self._spec.max_iterations

        async def body() -> None:
            try:
                await runtime.start(messages, scope, limit)
            finally:
                await self._release(control)

        result.start(runtime, body)
        return result

    @overload
    async def resume(
        self,
        method: Literal["generate"],
        data: Any,
        *,
        run_id: str,
        tool_call_id: str,
        abort_signal: asyncio.Event | None = None,
        deps: Mapping[str, Any] | None = None,
    ) -> GenerateResult: ...

    @overload
    async def resume(
        self,
        method: Literal["stream"],
        data: Any,
        *,
        run_id: str,
        tool_call_id: str,
        abort_signal: asyncio.Event | None = None,
        deps: Mapping[str, Any] | None = None,
    ) -> StreamResult: ...

    async def resume(
        self,
        method: Method,
        data: Any,
        *,
        run_id: str,
        tool_call_id: str,
        abort_signal: asyncio.Event | None = None,
        deps: Mapping[str, Any] | None = None,
    ) -> GenerateResult | StreamResult:
        """Answer one suspended tool call and carry the run on.

        Raises ``ResumeError`` when the run, the call or the data does not fit; failures after
        that are reported on the result, as in ``generate``.
        """
        state = await self.checkpoints.resume(run_id)
        entry = state.pending_tool_calls.get(tool_call_id)
        if entry is None or not entry.suspended:
            raise ResumeError(f"No tool call found for toolCallId: {tool_call_id}")
        known = self.tools.get(entry.tool_name) or await self._memory_tool(state, entry.tool_name)
        if known is None:
            raise ResumeError(f"Tool {entry.tool_name} not found")
        validator = resume_validator(known)
        if validator is not None:
            try:
                data = validator.validate(data)
            except ValueError as exc:
                raise ResumeError(f"Invalid resume payload: {exc}") from exc
        if method == "stream":
            control = RunControl(abort_signal)
            streamed = StreamResult(control)
            runtime = self._runtime(
                streamed.sink, control, streaming=True, run_id=run_id, deps=deps
            )

            async def body() -> None:
                try:
                    await runtime.resume(state, tool_call_id, data)
                finally:
                    await self._release(control)

            streamed.start(runtime, body)
            return streamed
        collector, control = ResultCollector(), RunControl(abort_signal)
        runtime = self._runtime(collector, control, streaming=False, run_id=run_id, deps=deps)
        try:
            await runtime.resume(state, tool_call_id, data)
        finally:
            await self._release(control)
        return collector.result(runtime)

    @overload
    async def approve(
        self,
        method: Literal["generate"],
        *,
        run_id: str,
        tool_call_id: str,
        deps: Mapping[str, Any] | None = None,
    ) -> GenerateResult: ...

    @overload
    async def approve(
        self,
        method: Literal["stream"],
        *,
        run_id: str,
        tool_call_id: str,
        deps: Mapping[str, Any] | None = None,
    ) -> StreamResult: ...

    async def approve(
        self,
        method: Method,
        *,
        run_id: str,
        tool_call_id: str,
        deps: Mapping[str, Any] | None = None,
    ) -> GenerateResult | StreamResult:
        """Approve a call waiting for approval: the tool runs and the run goes on."""
        return await self.resume(
            method, {"approved": True}, run_id=run_id, tool_call_id=tool_call_id, deps=deps
        )

    @overload
    async def deny(
        self,
        method: Literal["generate"],
        *,
        run_id: str,
        tool_call_id: str,
        reason: str | None = None,
        deps: Mapping[str, Any] | None = None,
    ) -> GenerateResult: ...

    @overload
    async def deny(
        self,
        method: Literal["stream"],
        *,
        run_id: str,
        tool_call_id: str,
        reason: str | None = None,
        deps: Mapping[str, Any] | None = None,
    ) -> StreamResult: ...

    async def deny(
        self,
        method: Method,
        *,
        run_id: str,
        tool_call_id: str,
        reason: str | None = None,
        deps: Mapping[str, Any] | None = None,
    ) -> GenerateResult | StreamResult:
        """Deny a call waiting for approval: the model gets a "denied" tool error and goes on."""
        data: dict[str, Any] = {"approved": False}
        if reason:
            data["reason"] = reason
        return await self.resume(method, data, run_id=run_id, tool_call_id=tool_call_id, deps=deps)

    # -- control and observation --------------------------------------------------------------

    def on(self, event: AgentEvent, handler: EventHandler) -> None:
        self.events.on(event, handler)

    def off(self, event: AgentEvent, handler: EventHandler) -> None:
        self.events.off(event, handler)

    def abort(self) -> None:
        """Abort every run of this agent now in progress; each ends ``cancelled``."""
        for control in tuple(self._active):
            control.abort()

    def get_state(self) -> AgentState:
        """A snapshot of the latest run (``idle`` before the first)."""
        return self._last.snapshot() if self._last is not None else AgentState()

    def as_tool(self, description: str, *, name: str | None = None) -> Tool:
        return agent_as_tool(self, description, name)

    async def wait_background(self) -> None:
        """Wait for background work this agent started (thread titles)."""
        while self._background:
            await asyncio.gather(*tuple(self._background), return_exceptions=True)

    async def aclose(self) -> None:
        """Abort running work and cancel background tasks."""
        self.abort()
        for task in tuple(self._background):
            task.cancel()
        await asyncio.gather(*tuple(self._background), return_exceptions=True)

    # -- internals ----------------------------------------------------------------------------

    def _runtime(
        self,
        sink: Callable[[Any], None],
        control: RunControl,
        *,
        streaming: bool,
        run_id: str | None,
        deps: Mapping[str, Any] | None,
    ) -> AgentRuntime:
        runtime = AgentRuntime(
            self._spec,
            run_id=run_id or new_id("run"),
            control=control,
            sink=sink,
            streaming=streaming,
            deps=deps,
        )
        self._active.add(control)
        self._last = runtime
        return runtime

    async def _release(self, control: RunControl) -> None:
        self._active.discard(control)
        await control.close()

    def _scope(
        self, thread_id: str | None, resource_id: str | None, tenant_id: str
    ) -> MemoryScope | None:
        if thread_id is None:
            return None
        if resource_id is None:
            raise ConfigurationError(
                "A thread belongs to a user: pass resource_id together with thread_id"
            )
        return MemoryScope(thread_id, resource_id, tenant_id)

    async def _memory_tool(self, state: AgentState, name: str) -> Tool | None:
        if self.memory is None or not (state.thread_id and state.resource_id):
            return None
        scope = MemoryScope(state.thread_id, state.resource_id, state.tenant_id or "default")
        context = await self.memory.context(scope, model=self.model)
        return next((t for t in context.tools if t.name == name), None)

    def _schedule_title(
        self, scope: MemoryScope, messages: list[AgentMessage | CustomMessage]
    ) -> None:
        memory = self.memory
        if memory is None or not memory.generates_titles:
            return
        first_user = next(
            (m for m in messages if isinstance(m, AgentMessage) and m.role == "user"), None
        )
        if first_user is None:
            return
        task = asyncio.create_task(title_thread(memory, scope, self.title_model, first_user.text))
        self._background.add(task)
        task.add_done_callback(self._background.discard)


def _tool_map(tools: Iterable[Tool | Callable[..., Any]]) -> dict[str, Tool]:
    mapped: dict[str, Tool] = {}
    for item in tools:
        built = item if isinstance(item, Tool) else tool(item)
        if built.name in mapped:
            raise ConfigurationError(f"Two tools are named {built.name!r}")
        mapped[built.name] = built
    return mapped


def _messages(input: AgentInput) -> list[AgentMessage]:
    if isinstance(input, str):
        return [AgentMessage(role="user", parts=[TextPart(text=input)])]
    if isinstance(input, AgentMessage):
        return [input]
    return list(input)
