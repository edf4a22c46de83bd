"""Abort: by agent.abort() or an external signal, during a model call or a tool; the run ends cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.agent import Agent
from runyard.errors import RunAbortedError
from runyard.runtime import AgentEvent, AgentEventData, RunStatus
from runyard.testing import call, scripted_model, text
from runyard.tools import tool


def _hanging_model(started: asyncio.Event) -> FunctionModel:
    """Hangs on its first request (until cancelled), answers "back" afterwards."""
    calls: list[int] = []

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        if len(calls) == 1:
            started.set()
            await asyncio.sleep(3600)
        return ModelResponse(parts=[TextPart("back")])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "partial "
        started.set()
        await asyncio.sleep(3600)
        yield "never"

    return FunctionModel(respond, stream_function=stream)


async def test_abort_cancels_an_in_flight_model_call_and_the_agent_can_run_again() -> None:
    started = asyncio.Event()
    errors: list[AgentEventData] = []
    agent = Agent("a", _hanging_model(started))
    agent.on(AgentEvent.ERROR, errors.append)

    running = asyncio.create_task(agent.generate("hi"))
    await started.wait()
    agent.abort()
    result = await asyncio.wait_for(running, 5)

    assert result.finish_reason == "error"
    assert isinstance(result.error, RunAbortedError)
    assert str(result.error) == "Agent run was aborted"
    assert agent.get_state().status is RunStatus.CANCELLED
    assert errors == []

    again = await agent.generate("hi again")
    assert (again.text, again.error) == ("back", None)
    assert agent.get_state().status is RunStatus.SUCCESS


async def test_abort_during_a_stream_ends_with_error_then_finish() -> None:
    started = asyncio.Event()
    agent = Agent("a", _hanging_model(started))
    stream = await agent.stream("hi")
    chunks = []
    async for chunk in stream:
        chunks.append(chunk)
        if chunk.type == "text-delta":
            await started.wait()
            agent.abort()
    assert [c.type for c in chunks] == ["text-delta", "error", "finish"]
    assert isinstance(chunks[1].error, RunAbortedError)  # type: ignore[union-attr]
    assert agent.get_state().status is RunStatus.CANCELLED


async def test_an_external_abort_signal_cancels_the_run() -> None:
    started = asyncio.Event()
    signal = asyncio.Event()
    agent = Agent("a", _hanging_model(started))
    running = asyncio.create_task(agent.generate("hi", abort_signal=signal))
    await started.wait()
    signal.set()
    result = await asyncio.wait_for(running, 5)
    assert isinstance(result.error, RunAbortedError)
    assert agent.get_state().status is RunStatus.CANCELLED


async def test_abort_while_a_tool_runs_cancels_the_tool() -> None:
    entered, finished = asyncio.Event(), []

    @tool
    async def slow() -> str:
        """Takes forever."""
        entered.set()
        await asyncio.sleep(3600)
        finished.append(True)
        return "done"

    agent = Agent("a", scripted_model([call("slow", id="s")]), tools=[slow])
    running = asyncio.create_task(agent.generate("go"))
    await entered.wait()
    agent.abort()
    result = await asyncio.wait_for(running, 5)
    assert isinstance(result.error, RunAbortedError)
    assert finished == []
    assert agent.get_state().status is RunStatus.CANCELLED


async def test_abort_from_an_agent_start_handler_stops_before_any_model_call() -> None:
    model = scripted_model([text("never")])
    agent = Agent("a", model)
    agent.on(AgentEvent.AGENT_START, lambda _: agent.abort())
    result = await agent.generate("hi")
    assert isinstance(result.error, RunAbortedError)
    assert model.requests == []
    assert agent.get_state().status is RunStatus.CANCELLED


async def test_cancelling_the_callers_task_is_not_mistaken_for_an_abort() -> None:
    started = asyncio.Event()
    agent = Agent("a", _hanging_model(started))
    running = asyncio.create_task(agent.generate("hi"))
    await started.wait()
    running.cancel()
    done, _ = await asyncio.wait({running}, timeout=5)
    assert running in done
    assert running.cancelled()
    assert agent.get_state().status is RunStatus.CANCELLED
