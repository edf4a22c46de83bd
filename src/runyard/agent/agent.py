"""``Agent``: the public SDK object. It holds the configuration; every run gets a fresh runtime."""

from __future__ import annotations

import asyncio
import math
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, TypedDict, overload

from pydantic import BaseModel
from pydantic_ai.models import Model
from typing_extensions import Unpack

from runyard.agent.prepared_resume import PreparedResume, nested_answer
from runyard.agent.stream import DEFAULT_STREAM_BUFFER, StreamResult
from runyard.agent.sub_agent import agent_as_tool
from runyard.errors import ConfigurationError, ResumeDataError, ResumeError
from runyard.ids import new_id
from runyard.messages import AgentMessage, CustomMessage, TextPart
from runyard.models import model_label, resolve_model
from runyard.runtime import (
    AgentEvent,
    AgentEventBus,
    AgentRuntime,
    AgentState,
    CheckpointStore,
    ChunkSink,
    EventHandler,
    GenerateResult,
    InMemoryCheckpointStore,
    JournalCall,
    MemoryProtocol,
    MemoryScope,
    ResultCollector,
    RunControl,
    RunJournal,
    RunStateManager,
    RuntimeSpec,
    StructuredOutput,
    TitleWriter,
    title_thread,
)
from runyard.runtime.middleware import Middleware, MiddlewareStack
from runyard.telemetry import NO_TELEMETRY, Telemetry
from runyard.tools import JsonSchemaValidator, Tool, resume_validator, tool

__all__ = ["ENDED_RUNS_KEPT", "Agent", "AgentInput", "Method", "ResumeOptions", "RunOptions"]

AgentInput = str | AgentMessage | Sequence[AgentMessage]
Method = Literal["generate", "stream"]
RunBody = Callable[[AgentRuntime], Awaitable[None]]

ENDED_RUNS_KEPT = 64
"""How many of the runs that ended ``agent.get_state(run_id=...)`` still knows (the newest)."""


class ResumeOptions(TypedDict, total=False):
    """Options of every run segment, a fresh run or a resume."""

    abort_signal: asyncio.Event | None
    """Set it to abort the run, as ``agent.abort()`` does."""
    deps: Mapping[str, Any] | None
    """Handed to tools as ``ToolContext.deps`` (shared clients, never read from the environment)."""
    telemetry: Telemetry | None
    """Where this run reports its spans instead of the agent's telemetry (a sub-agent's run gets
    its caller's tool span: ``ToolContext.telemetry``)."""
    journal: RunJournal | None
    """Where the run makes every step durable (``runtime.journal``), so ``recover`` can carry it
    on after its process died; None: only suspensions are kept (in ``checkpoints``)."""


class RunOptions(ResumeOptions, total=False):
    """Options of a fresh run."""

    thread_id: str | None
    resource_id: str | None
    """The user the thread belongs to; required with ``thread_id``."""
    tenant_id: str
    max_iterations: int | None
    run_id: str | None
    """Use this id instead of a fresh one (a service that announced the id already)."""


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
        )
        self.stream_buffer = stream_buffer
        self._runs: dict[str, AgentRuntime] = {}
        """The runs in progress on this object, by run id."""
        self._ended: OrderedDict[str, AgentRuntime] = OrderedDict()
        """The last ``ENDED_RUNS_KEPT`` runs that ended here, oldest first (``get_state``)."""
        self._background: set[asyncio.Task[Any]] = set()
        self._last: AgentRuntime | None = None

    # -- runs ---------------------------------------------------------------------------------

    async def generate(self, input: AgentInput, **options: Unpack[RunOptions]) -> GenerateResult:
        """Run to the end (or to a suspension) and return the result; run failures are on it."""
        start = self._starter(input, options)
        return await self._generate(start, options.get("run_id"), options)

    async def stream(self, input: AgentInput, **options: Unpack[RunOptions]) -> StreamResult:
        """Start a run in the background and return its chunk stream at once."""
        start = self._starter(input, options)
        return self._stream(start, options.get("run_id"), options)

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
        return await self._prepare(run_id, state, data, tool_call_id)

    async def prepare_resume_from(
        self, state: AgentState, data: Any, *, tool_call_id: str
    ) -> PreparedResume:
        """``prepare_resume`` for a run whose state its caller kept instead of this agent's
        checkpoint store: a sub-agent's suspended run, inside the checkpoint of the run whose
        tool call runs it (``SubAgentAnswer.state``)."""
        if state.run_id is None:
            raise ResumeError("The state names no run")
        return await self._prepare(state.run_id, state, data, tool_call_id)

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
            return self._stream(carry_on, prepared.run_id, options)
        return await self._generate(carry_on, prepared.run_id, options)

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
            return self._stream(carry_on, state.run_id, options)
        return await self._generate(carry_on, state.run_id, options)

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

    def abort(self, run_id: str | None = None) -> bool:
        """Abort the run ``run_id``, or without it every run of this agent now in progress; each
        ends ``cancelled``. True when a run was aborted.

        One agent object shared by concurrent runs (a server) aborts one of them by its id, or
        with its own ``abort_signal`` (docs/runtime.md, Per-run control).
        """
        if run_id is not None:
            runtimes = [self._runs[run_id]] if run_id in self._runs else []
        else:
            runtimes = list(self._runs.values())
        for runtime in runtimes:
            runtime.control.abort()
        return bool(runtimes)

    def get_state(self, run_id: str | None = None) -> AgentState:
        """A snapshot of the run ``run_id``, or without it of the latest run (``idle`` before
        the first).

        ``run_id`` finds a run in progress on this agent or one of the last ``ENDED_RUNS_KEPT``
        that ended here; ``KeyError`` for any other (a stream's ``state`` keeps its run's state
        for as long as the caller keeps the stream).
        """
        if run_id is None:
            return self._last.snapshot() if self._last is not None else AgentState()
        runtime = self._runs.get(run_id) or self._ended.get(run_id)
        if runtime is None:
            raise KeyError(f"No run {run_id} is known to agent {self.name!r}")
        return runtime.snapshot()

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

    async def _generate(
        self, body: RunBody, run_id: str | None, options: ResumeOptions
    ) -> GenerateResult:
        """Run ``body`` in the caller's task, folding its chunks into a result."""
        collector = ResultCollector()
        runtime = self._runtime(collector, run_id, options, streaming=False)
        try:
            await body(runtime)
        finally:
            await self._release(runtime)
        return collector.result(runtime)

    def _stream(self, body: RunBody, run_id: str | None, options: ResumeOptions) -> StreamResult:
        """Run ``body`` in a task the returned stream owns."""
        control = RunControl(options.get("abort_signal"))
        result = StreamResult(control, self.stream_buffer)
        runtime = self._runtime(result.sink, run_id, options, streaming=True, control=control)

        async def produce() -> None:
            try:
                await body(runtime)
            finally:
                await self._release(runtime)

        result.start(runtime, produce)
        return result

    def _runtime(
        self,
        sink: ChunkSink,
        run_id: str | None,
        options: ResumeOptions,
        *,
        streaming: bool,
        control: RunControl | None = None,
    ) -> AgentRuntime:
        control = control or RunControl(options.get("abort_signal"))
        runtime = AgentRuntime(
            self._spec,
            run_id=run_id or new_id("run"),
            control=control,
            sink=sink,
            streaming=streaming,
            deps=options.get("deps"),
            telemetry=options.get("telemetry"),
            journal=options.get("journal"),
        )
        self._runs[runtime.run_id] = runtime
        self._last = runtime
        return runtime

    async def _release(self, runtime: AgentRuntime) -> None:
        if self._runs.get(runtime.run_id) is runtime:
            del self._runs[runtime.run_id]
        self._ended[runtime.run_id] = runtime
        self._ended.move_to_end(runtime.run_id)
        while len(self._ended) > ENDED_RUNS_KEPT:
            self._ended.popitem(last=False)
        await runtime.control.close()

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

    async def _prepare(
        self, run_id: str, state: AgentState, data: Any, tool_call_id: str
    ) -> PreparedResume:
        entry = state.waiting_call(tool_call_id)
        if entry is None:
            raise ResumeError(f"No tool call found for toolCallId: {tool_call_id}")
        if entry.nested is not None:
            answer = nested_answer(entry.nested, tool_call_id, data)
            return PreparedResume(run_id, entry.tool_call_id, answer, state)
        known = self.tools.get(entry.tool_name) or await self._memory_tool(state, entry.tool_name)
        if known is None:
            raise ResumeError(f"Tool {entry.tool_name} not found")
        validator = resume_validator(known)
        if validator is None and entry.resume_schema is not None:
            # A middleware put the call behind a gate the tool lacks (approval_policy): the
            # answer is checked against the schema the call suspended with.
            validator = JsonSchemaValidator(entry.resume_schema)
        if validator is not None:
            try:
                data = validator.validate(data)
            except ValueError as exc:
                raise ResumeDataError(entry.tool_name, str(exc)) from exc
        return PreparedResume(run_id, tool_call_id, data, state)

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
        task = asyncio.create_task(title_thread(memory, scope, self.titles, first_user.text))
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
