"""The ``finish`` chunk carries the segment's verdict: how it ended, decided by the runtime once.

A caller (the service) reads ``status`` and ``error`` off the last chunk instead of inferring the
ending from the chunks before it, and the verdict always agrees with ``agent.get_state()``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.agent import Agent
from runyard.errors import MaxIterationsError, RunAbortedError
from runyard.runtime import FinishChunk, RunStatus, StreamChunk
from runyard.testing import call, scripted_model, text
from runyard.tools import tool


@tool
async def add(a: int, b: int) -> dict[str, int]:
    """Add two numbers."""
    return {"sum": a + b}


@tool(requires_approval=True)
async def launch(target: str) -> str:
    """Launch something irreversible."""
    return f"launched {target}"


async def finish_of(agent: Agent, chunks: AsyncIterator[StreamChunk]) -> FinishChunk:
    """The segment's last chunk, which must be its only ``finish``."""
    seen = [c async for c in chunks]
    finishes = [c for c in seen if isinstance(c, FinishChunk)]
    assert finishes == [seen[-1]]
    assert isinstance(seen[-1], FinishChunk)
    assert seen[-1].status is agent.get_state().status
    return seen[-1]


async def test_a_completed_segment_finishes_success_without_an_error() -> None:
    agent = Agent("a", scripted_model([call("add", {"a": 1, "b": 2}), text("3")]), tools=[add])
    finish = await finish_of(agent, await agent.stream("add"))

    assert (finish.status, finish.error, finish.finish_reason) == (RunStatus.SUCCESS, None, "stop")


async def test_a_suspended_segment_finishes_suspended_and_its_resume_success() -> None:
    agent = Agent(
        "a", scripted_model([call("launch", {"target": "moon"}), text("ok")]), tools=[launch]
    )
    stream = await agent.stream("go")
    suspended = await finish_of(agent, stream)
    resumed = await agent.approve("stream", run_id=stream.run_id, tool_call_id=_only_call(agent))
    completed = await finish_of(agent, resumed)

    assert (suspended.status, suspended.error) == (RunStatus.SUSPENDED, None)
    assert (completed.status, completed.error) == (RunStatus.SUCCESS, None)


def _only_call(agent: Agent) -> str:
    (call_id,) = agent.get_state().pending_tool_calls
    return call_id


async def test_a_failed_segment_finishes_failed_with_its_error() -> None:
    loops = [call("add", {"a": 1, "b": 1}) for _ in range(2)]
    agent = Agent("a", scripted_model(loops), tools=[add], max_iterations=2)
    finish = await finish_of(agent, await agent.stream("go"))

    assert finish.status is RunStatus.FAILED
    assert isinstance(finish.error, MaxIterationsError)


async def test_an_aborted_segment_finishes_cancelled() -> None:
    started = asyncio.Event()

    async def hang(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "partial "
        started.set()
        await asyncio.sleep(3600)
        yield "never"

    agent = Agent("a", FunctionModel(stream_function=hang))
    stream = await agent.stream("hi")
    await started.wait()
    stream.abort()
    finish = await finish_of(agent, stream)

    assert finish.status is RunStatus.CANCELLED
    assert isinstance(finish.error, RunAbortedError)


async def test_a_failure_caused_by_an_abort_finishes_cancelled_and_keeps_it_as_the_cause() -> None:
    started = asyncio.Event()

    async def torn_down(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            # A client library that reports a cancelled request as its own failure.
            raise ConnectionError("connection closed mid-request") from None
        return ModelResponse(parts=[TextPart("never")])

    agent = Agent("a", FunctionModel(torn_down))
    running = asyncio.create_task(agent.generate("hi"))
    await started.wait()
    agent.abort()
    result = await asyncio.wait_for(running, 5)

    assert agent.get_state().status is RunStatus.CANCELLED
    assert isinstance(result.error, RunAbortedError)
    assert isinstance(result.error.__cause__, ConnectionError)
