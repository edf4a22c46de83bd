"""``ExecutionContext``: spec parameters, and per-call inputs, binaries and progress."""

from __future__ import annotations

from typing import Any

import pytest
from tool_runs import agent_calling, results

from runyard.protocol import StatusEvent, StatusPayload
from runyard.registry.tools import (
    BuildContext,
    ExecutionContext,
    InMemoryBinaries,
    NoCallInProgressError,
    StaticToolkit,
    ToolConfiguration,
    ToolDependencies,
    ToolFactories,
)
from runyard.runtime import ToolEventChunk
from runyard.service.event_log.chunks import ChunkMapper
from runyard.tools import ToolProgress, tool


class ReportingFactory:
    """Tools that use every helper of their execution context."""

    def __init__(self) -> None:
        self.contexts: list[ExecutionContext] = []

    def build(
        self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
    ) -> ToolConfiguration:
        self.contexts.append(exec_ctx)
        unit = exec_ctx.get_parameter("unit", default="items")

        @tool
        async def count(n: int) -> str:
            """Count to n, reporting each step."""
            for step in range(1, n + 1):
                exec_ctx.emit_progress(f"{step}/{n} {unit}")
            return f"counted {exec_ctx.get_input_data(0)['n']} {unit}"

        @tool
        def count_in_a_thread(n: int) -> str:
            """The same, from a worker thread."""
            exec_ctx.emit_progress(f"thread {n}")
            return f"thread counted {exec_ctx.get_input_data(0)['n']}"

        @tool
        async def size_of(binary_id: str) -> int:
            """The size of a binary, read in chunks."""
            return sum([len(chunk) async for chunk in exec_ctx.get_binary_stream(binary_id)])

        toolkit = StaticToolkit(context.name, [count, count_in_a_thread, size_of])
        return ToolConfiguration.from_toolkit(toolkit, context)


def build(deps: ToolDependencies, **parameters: Any) -> tuple[ReportingFactory, Any]:
    factory = ReportingFactory()
    built = ToolFactories({"reporting": factory}).build(
        "reporting", BuildContext("reporting", parameters), deps
    )
    return factory, built.tools


async def test_concurrent_calls_each_report_progress_on_their_own_call() -> None:
    async with ToolDependencies() as deps:
        _, tools = build(deps, unit="sheep")
        agent = agent_calling(
            tools,
            ("count", {"n": 2}),
            ("count_in_a_thread", {"n": 7}),
            ("count", {"n": 1}),
        )
        stream = await agent.stream("go")
        chunks = [chunk async for chunk in stream]
        outcomes = results(await stream.result())

    events = [(c.tool_call_id, c.event) for c in chunks if isinstance(c, ToolEventChunk)]
    assert sorted(events, key=lambda e: (e[0], e[1].message)) == [
        ("c0", ToolProgress("1/2 sheep")),
        ("c0", ToolProgress("2/2 sheep")),
        ("c1", ToolProgress("thread 7")),
        ("c2", ToolProgress("1/1 sheep")),
    ]
    assert [outcomes[f"c{n}"].result for n in range(3)] == [
        "counted 2 sheep",
        "thread counted 7",
        "counted 1 sheep",
    ]


async def test_progress_becomes_a_status_event_on_the_thread() -> None:
    async with ToolDependencies() as deps:
        _, tools = build(deps, unit="steps")
        stream = await agent_calling(tools, ("count", {"n": 1})).stream("go")
        chunks = [chunk async for chunk in stream]

    mapper = ChunkMapper("run-1", "agent-001")
    events = [e for c in chunks if isinstance(c, ToolEventChunk) for e in mapper.map(c)]
    payload = StatusPayload(message="1/1 steps")
    assert events == [StatusEvent(run_id="run-1", agent_id="agent-001", payload=payload)]


async def test_binaries_are_read_in_chunks_from_the_injected_source() -> None:
    binaries = InMemoryBinaries(chunk_size=4)
    binaries.put("file-1", b"0123456789")
    async with ToolDependencies(binaries=binaries) as deps:
        _, tools = build(deps)
        agent = agent_calling(
            tools, ("size_of", {"binary_id": "file-1"}), ("size_of", {"binary_id": "nope"})
        )
        outcomes = results(await agent.generate("go"))

    assert outcomes["c0"].result == 10
    assert outcomes["c1"].is_error
    assert "no binary with id 'nope'" in outcomes["c1"].result


async def test_without_a_binary_source_reading_one_is_a_tool_error() -> None:
    async with ToolDependencies() as deps:
        _, tools = build(deps)
        agent = agent_calling(tools, ("size_of", {"binary_id": "file-1"}))
        outcome = results(await agent.generate("go"))["c0"]
    assert outcome.is_error
    assert "no binary source is configured" in outcome.result


async def test_per_call_helpers_refuse_outside_a_call() -> None:
    async with ToolDependencies() as deps:
        factory, _ = build(deps, unit="sheep")
    [exec_ctx] = factory.contexts
    assert exec_ctx.get_parameter("unit") == "sheep"
    assert exec_ctx.get_parameter("missing", default=3) == 3
    with pytest.raises(NoCallInProgressError, match="emit_progress"):
        exec_ctx.emit_progress("nobody listens")
    with pytest.raises(NoCallInProgressError, match="get_input_data"):
        exec_ctx.get_input_data(0)
    with pytest.raises(IndexError, match="not 1"):
        exec_ctx.get_input_data(1)
