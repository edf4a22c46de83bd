"""``Agent``: the public SDK object. It holds the configuration; every run gets a fresh runtime."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, overload

from pydantic import BaseModel
from pydantic_ai.models import Model
from typing_extensions import Unpack

from runyard.agent.prepared_resume import PreparedResume, check_resume
from runyard.agent.run_options import ResumeOptions, RunOptions
from runyard.agent.runs import ENDED_RUNS_KEPT, AgentRuns, RunBody
from runyard.agent.stream import DEFAULT_STREAM_BUFFER, StreamResult
from runyard.agent.sub_agent import agent_as_tool
from runyard.errors import ConfigurationError, ResumeError
from runyard.messages import AgentMessage, CustomMessage, TextPart
from runyard.models import model_label, resolve_model
from runyard.runtime import (
    AgentEvent,
    AgentEventBus,
    AgentModel,
    AgentRuntime,
    AgentState,
    CheckpointStore,
    EventHandler,
    GenerateResult,
    InMemoryCheckpointStore,
    JournalCall,
    MemoryProtocol,
    MemoryScope,
    RunStateManager,
    RuntimeSpec,
    StructuredOutput,
    TitleWriter,
    title_thread,
)
from runyard.runtime.middleware import Middleware, MiddlewareStack
from runyard.telemetry import NO_TELEMETRY, Telemetry
from runyard.tools import Tool, tool

__all__ = ["ENDED_RUNS_KEPT", "Agent", "AgentInput", "Method", "ResumeOptions", "RunOptions"]

AgentInput = str | AgentMessage | Sequence[AgentMessage]
Method = Literal["generate", "stream"]


class Agent:
    """An agent: a model, instructions and tools, with optional memory and durable checkpoints.

    ``generate`` returns a ``GenerateResult``; ``stream`` returns a ``StreamResult`` to iterate.
    Both run the same loop. A run suspended for an approval (or a tool's ``Suspend``) is carried
    on with ``approve``, ``deny`` or ``resume``, also by another ``Agent`` object (or process)
    that shares the checkpoint store.

    Limits of each run (docs/runtime.md, Limits): ``max_iterations``, ``timeout_s`` (the run's
    executing time; time suspended does not count), ``tool_timeout_s`` (each call; a timeout is a
    tool error the model reads) and ``max_output_tokens`` (over every model call). Structured
    output: ``output_type`` (a pydantic model) or ``output_schema`` (a JSON Schema object).
    ``fallback_models`` serve a model call, in order, when the models before failed it at the
    provider (an HTTP error such as 429 or 503, a timeout, no connection); see docs/catalog.md.
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
        timeout_s: float | None = None,
        tool_timeout_s: float | None = None,
        max_output_tokens: int | None = None,
        memory: MemoryProtocol | None = None,
        checkpoint_store: CheckpointStore | None = None,
        output_type: type[BaseModel] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        model_settings: Mapping[str, Any] | None = None,
        title_model: str | Model | None = None,
        stream_buffer: int = DEFAULT_STREAM_BUFFER,
        telemetry: Telemetry | None = None,
        middleware: Sequence[Middleware] = (),
        fallback_models: Sequence[str | Model] = (),
    ) -> None:
        if not name:
            raise ConfigurationError("An agent needs a name")
        if not (math.isinf(tool_call_concurrency) or float(tool_call_concurrency).is_integer()):
            raise ConfigurationError("tool_call_concurrency must be a positive integer or math.inf")
        if tool_call_concurrency < 1:
            raise ConfigurationError("tool_call_concurrency must be a positive integer or math.inf")
        if max_iterations < 1:
            raise ConfigurationError("max_iterations must be at least 1")
        if stream_buffer < 1:
            raise ConfigurationError("stream_buffer must be at least 1")
        _check_limits(timeout_s=timeout_s, tool_timeout_s=tool_timeout_s)
        if max_output_tokens is not None and max_output_tokens < 1:
            raise ConfigurationError("max_output_tokens must be at least 1")
        self.name = name
        self.model = resolve_model(model)
        self.model_label = model_label(self.model)
        self.fallback_models = tuple(resolve_model(m) for m in fallback_models)
        """Models that serve a call, in turn, when the ones before failed it at the provider."""
        self.instructions = instructions
        self.tools = _tool_map(tools)
        self.middleware = tuple(middleware)
        """Hooks around this agent's model calls, tool calls and deltas, outermost first."""
        stack = MiddlewareStack(self.middleware)
        self.titles = TitleWriter(
            resolve_model(title_model)
            if title_model is not None
            else (memory.title_model if memory is not None else None) or self.model,
            stack,
        )
        """Names a thread from its first message: the title model, through this middleware."""
        self._asked = AgentModel(self.model, stack)
        """The model as memory asks it (an observer's call), through this middleware."""
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
            output=StructuredOutput.of(output_type, output_schema),
            model_settings=model_settings,
            on_turn_saved=self._schedule_title if memory is not None else None,
            telemetry=telemetry or NO_TELEMETRY,
            timeout_s=timeout_s,
            tool_timeout_s=tool_timeout_s,
            max_output_tokens=max_output_tokens,
            middleware=stack,
            fallback_models=self.fallback_models,
        )
        self.stream_buffer = stream_buffer
        self._runs = AgentRuns(self._spec)
        self._background: set[asyncio.Task[Any]] = set()

    # -- runs ---------------------------------------------------------------------------------

    async def generate(self, input: AgentInput, **options: Unpack[RunOptions]) -> GenerateResult:
        """Run to the end (or to a suspension) and return the result; run failures are on it."""
        start = self._starter(input, options)
        return await self._runs.generate(start, options.get("run_id"), options)

    async def stream(self, input: AgentInput, **options: Unpack[RunOptions]) -> StreamResult:
        """Start a run in the background and return its chunk stream at once."""
        start = self._starter(input, options)
        return self._runs.stream(start, options.get("run_id"), options, self.stream_buffer)

    @overload
    async def resume(
        self,
        method: Literal["generate"],
        data: Any,
        *,
        run_id: str,
        tool_call_id: str,
        **options: Unpack[ResumeOptions],
    ) -> GenerateResult: ...

    @overload
    async def resume(
        self,
        method: Literal["stream"],
        data: Any,
        *,
        run_id: str,
        tool_call_id: str,
        **options: Unpack[ResumeOptions],
    ) -> StreamResult: ...

    async def resume(
        self,
        method: Method,
        data: Any,
        *,
        run_id: str,
        tool_call_id: str,
        **options: Unpack[ResumeOptions],
    ) -> GenerateResult | StreamResult:
        """Answer one suspended tool call and carry the run on.

        Raises ``ResumeError`` when the run, the call or the data does not fit
        (``ResumeDataError`` for the data); failures after that are reported on the result, as in
        ``generate``.
        """
        prepared = await self.prepare_resume(data, run_id=run_id, tool_call_id=tool_call_id)
        return await self.resume_prepared(method, prepared, **options)

    async def prepare_resume(self, data: Any, *, run_id: str, tool_call_id: str) -> PreparedResume:
        """Load the run's checkpoint, find the waiting call and validate ``data`` for it; nothing
        runs yet. ``resume_prepared`` carries the run on with what this loaded.

        ``tool_call_id`` may name a call of a sub-agent the run waits on (``PendingSuspend``
        entries with an ``agent_id``): the run then resumes at its own call that runs the
        sub-agent, and that call's tool resumes the sub-agent with ``data``.

        Raises ``ResumeError`` when the run or the call is not waiting (any more), and
        ``ResumeDataError`` when ``data`` does not fit the call's resume schema.
        """
        state = await self.checkpoints.resume(run_id)
        return await self._check_resume(run_id, state, data, tool_call_id)

    async def prepare_resume_from(
        self, state: AgentState, data: Any, *, tool_call_id: str
    ) -> PreparedResume:
        """``prepare_resume`` for a run whose state its caller kept instead of this agent's
        checkpoint store: a sub-agent's suspended run, inside the checkpoint of the run whose
        tool call runs it (``SubAgentAnswer.state``)."""
        if state.run_id is None:
            raise ResumeError("The state names no run")
        return await self._check_resume(state.run_id, state, data, tool_call_id)

    @overload
    async def resume_prepared(
        self,
        method: Literal["generate"],
        prepared: PreparedResume,
        **options: Unpack[ResumeOptions],
    ) -> GenerateResult: ...

    @overload
    async def resume_prepared(
        self,
        method: Literal["stream"],
        prepared: PreparedResume,
        **options: Unpack[ResumeOptions],
    ) -> StreamResult: ...

    async def resume_prepared(
        self, method: Method, prepared: PreparedResume, **options: Unpack[ResumeOptions]
    ) -> GenerateResult | StreamResult:
        """Carry on a run that ``prepare_resume`` checked, from the state it loaded."""

        async def carry_on(runtime: AgentRuntime) -> None:
            await runtime.resume(prepared.state, prepared.tool_call_id, prepared.data)

        if method == "stream":
            return self._runs.stream(carry_on, prepared.run_id, options, self.stream_buffer)
        return await self._runs.generate(carry_on, prepared.run_id, options)

    @overload
    async def recover(
        self,
        method: Literal["generate"],
        state: AgentState,
        calls: Mapping[str, JournalCall],
        **options: Unpack[ResumeOptions],
    ) -> GenerateResult: ...

    @overload
    async def recover(
        self,
        method: Literal["stream"],
        state: AgentState,
        calls: Mapping[str, JournalCall],
        **options: Unpack[ResumeOptions],
    ) -> StreamResult: ...

    async def recover(
        self,
        method: Method,
        state: AgentState,
        calls: Mapping[str, JournalCall],
        **options: Unpack[ResumeOptions],
    ) -> GenerateResult | StreamResult:
        """Carry on a run whose process died, from what its journal held: its last progress
        checkpoint ``state`` and its tool calls (``runtime.journal`` says what runs again)."""
        if state.run_id is None:
            raise ResumeError("The state names no run")

        async def carry_on(runtime: AgentRuntime) -> None:
            await runtime.recover(state, calls)

        if method == "stream":
            return self._runs.stream(carry_on, state.run_id, options, self.stream_buffer)
        return await self._runs.generate(carry_on, state.run_id, options)

    @overload
    async def approve(
        self,
        method: Literal["generate"],
        *,
        run_id: str,
        tool_call_id: str,
        **options: Unpack[ResumeOptions],
    ) -> GenerateResult: ...

    @overload
    async def approve(
        self,
        method: Literal["stream"],
        *,
        run_id: str,
        tool_call_id: str,
        **options: Unpack[ResumeOptions],
    ) -> StreamResult: ...

    async def approve(
        self, method: Method, *, run_id: str, tool_call_id: str, **options: Unpack[ResumeOptions]
    ) -> GenerateResult | StreamResult:
        """Approve a call waiting for approval: the tool runs and the run goes on."""
        answer = {"approved": True}
        return await self.resume(
            method, answer, run_id=run_id, tool_call_id=tool_call_id, **options
        )

    @overload
    async def deny(
        self,
        method: Literal["generate"],
        *,
        run_id: str,
        tool_call_id: str,
        reason: str | None = None,
        **options: Unpack[ResumeOptions],
    ) -> GenerateResult: ...

    @overload
    async def deny(
        self,
        method: Literal["stream"],
        *,
        run_id: str,
        tool_call_id: str,
        reason: str | None = None,
        **options: Unpack[ResumeOptions],
    ) -> StreamResult: ...

    async def deny(
        self,
        method: Method,
        *,
        run_id: str,
        tool_call_id: str,
        reason: str | None = None,
        **options: Unpack[ResumeOptions],
    ) -> GenerateResult | StreamResult:
        """Deny a call waiting for approval: the model gets a "denied" tool error and goes on."""
        answer: dict[str, Any] = {"approved": False}
        if reason:
            answer["reason"] = reason
        return await self.resume(
            method, answer, run_id=run_id, tool_call_id=tool_call_id, **options
        )

    # -- control and observation --------------------------------------------------------------

    def on(self, event: AgentEvent, handler: EventHandler) -> None:
        self.events.on(event, handler)

    def off(self, event: AgentEvent, handler: EventHandler) -> None:
        self.events.off(event, handler)

    @property
    def running(self) -> bool:
        """Whether a run is in progress on this agent object (a suspended run is not)."""
        return self._runs.running

    def abort(self, run_id: str | None = None) -> bool:
        """Abort the run ``run_id``, or without it every run of this agent now in progress; each
        ends ``cancelled``. True when a run was aborted.

        One agent object shared by concurrent runs (a server) aborts one of them by its id, or
        with its own ``abort_signal`` (docs/runtime.md, Per-run control).
        """
        return self._runs.abort(run_id)

    def get_state(self, run_id: str | None = None) -> AgentState:
        """A snapshot of the run ``run_id``, or without it of the latest run (``idle`` before
        the first).

        ``run_id`` finds a run in progress on this agent or one of the last ``ENDED_RUNS_KEPT``
        that ended here; ``KeyError`` for any other (a stream's ``state`` keeps its run's state
        for as long as the caller keeps the stream).
        """
        return self._runs.state(run_id)

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

    def _starter(self, input: AgentInput, options: RunOptions) -> RunBody:
        """The body of a fresh run; input and scope are checked now, before anything starts."""
        messages = _messages(input)
        scope = self._scope(
            options.get("thread_id"), options.get("resource_id"), options.get("tenant_id")
        )
        limit = options.get("max_iterations") or self._spec.max_iterations

        async def start(runtime: AgentRuntime) -> None:
            await runtime.start(messages, scope, limit)

        return start

    async def _check_resume(
        self, run_id: str, state: AgentState, data: Any, tool_call_id: str
    ) -> PreparedResume:
        """``check_resume`` with this agent's tools, memory and model."""
        return await check_resume(
            run_id,
            state,
            data,
            tool_call_id,
            tools=self.tools,
            memory=self.memory,
            model=self._asked,
        )

    def _scope(
        self, thread_id: str | None, resource_id: str | None, tenant_id: str | None
    ) -> MemoryScope | None:
        if thread_id is None:
            return None
        if resource_id is None:
            raise ConfigurationError(
                "A thread belongs to a user: pass resource_id together with thread_id"
            )
        return MemoryScope(thread_id, resource_id, tenant_id or "default")

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
        task = asyncio.create_task(title_thread(memory, scope, self.titles, first_user))
        self._background.add(task)
        task.add_done_callback(self._background.discard)


def _check_limits(**seconds: float | None) -> None:
    for name, value in seconds.items():
        if value is not None and not value > 0:
            raise ConfigurationError(f"{name} must be a positive number of seconds")


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
