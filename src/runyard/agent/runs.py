"""``AgentRuns``: the runs of one ``Agent`` object, each on a fresh runtime.

Every run segment (a fresh run, a resume, a recovery) gets its own ``AgentRuntime``: ``generate``
drives it in the caller's task, ``stream`` in a task the returned stream owns. A runtime is known
by its run id while it runs and, once it ended, among the newest ``ENDED_RUNS_KEPT``, so
``abort`` and ``state`` find it. It never decides how a run ends: the runtime does.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable

from runyard.agent.run_options import ResumeOptions
from runyard.agent.stream import StreamResult
from runyard.ids import new_id
from runyard.runtime import (
    AgentRuntime,
    AgentState,
    ChunkSink,
    GenerateResult,
    ResultCollector,
    RunControl,
    RuntimeSpec,
)

__all__ = ["ENDED_RUNS_KEPT", "AgentRuns", "RunBody", "RuntimeFactory"]

RunBody = Callable[[AgentRuntime], Awaitable[None]]
"""What a segment does with its runtime: start, resume or recover it."""

RuntimeFactory = Callable[..., AgentRuntime]
"""Makes a segment's runtime from ``AgentRuntime``'s arguments (``GraphRuntime`` for a LangGraph
agent)."""

ENDED_RUNS_KEPT = 64
"""How many of the runs that ended ``agent.get_state(run_id=...)`` still knows (the newest)."""


class AgentRuns:
    """The runs in progress on one agent object, by run id, and the last ones that ended."""

    def __init__(self, spec: RuntimeSpec, runtime: RuntimeFactory = AgentRuntime) -> None:
        self._spec = spec
        self._make_runtime = runtime
        self._running: dict[str, AgentRuntime] = {}
        self._ended: OrderedDict[str, AgentRuntime] = OrderedDict()
        """The last ``ENDED_RUNS_KEPT`` runs that ended here, oldest first."""
        self._last: AgentRuntime | None = None

    async def generate(
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

    def stream(
        self, body: RunBody, run_id: str | None, options: ResumeOptions, buffer_size: int
    ) -> StreamResult:
        """Run ``body`` in a task the returned stream owns."""
        control = RunControl(options.get("abort_signal"))
        result = StreamResult(control, buffer_size)
        runtime = self._runtime(result.sink, run_id, options, streaming=True, control=control)

        async def produce() -> None:
            try:
                await body(runtime)
            finally:
                await self._release(runtime)

        result.start(runtime, produce)
        return result

    @property
    def running(self) -> bool:
        """Whether a run is in progress on this agent object."""
        return bool(self._running)

    def abort(self, run_id: str | None) -> bool:
        """Abort the run ``run_id``, or without it every run in progress; True when one was."""
        if run_id is not None:
            runtimes = [self._running[run_id]] if run_id in self._running else []
        else:
            runtimes = list(self._running.values())
        for runtime in runtimes:
            runtime.control.abort()
        return bool(runtimes)

    def state(self, run_id: str | None) -> AgentState:
        """A snapshot of the run ``run_id`` (``KeyError`` when unknown), or without it of the
        latest run (``idle`` before the first)."""
        if run_id is None:
            return self._last.snapshot() if self._last is not None else AgentState()
        runtime = self._running.get(run_id) or self._ended.get(run_id)
        if runtime is None:
            raise KeyError(f"No run {run_id} is known to agent {self._spec.name!r}")
        return runtime.snapshot()

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
        runtime = self._make_runtime(
            self._spec,
            run_id=run_id or new_id("run"),
            control=control,
            sink=sink,
            streaming=streaming,
            deps=options.get("deps"),
            telemetry=options.get("telemetry"),
            journal=options.get("journal"),
            files=options.get("files"),
            produced_files=options.get("produced_files"),
        )
        self._running[runtime.run_id] = runtime
        self._last = runtime
        return runtime

    async def _release(self, runtime: AgentRuntime) -> None:
        runtime.release()
        if self._running.get(runtime.run_id) is runtime:
            del self._running[runtime.run_id]
        self._ended[runtime.run_id] = runtime
        self._ended.move_to_end(runtime.run_id)
        while len(self._ended) > ENDED_RUNS_KEPT:
            self._ended.popitem(last=False)
        await runtime.control.close()
