"""Abort: by agent.abort() or an external signal, during a model call or a tool; the run ends cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.agent import ENDED_RUNS_KEPT, Agent, StreamResult
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


def _gated_model(release: asyncio.Event, started: list[str]) -> FunctionModel:
    """Streams "thinking", then waits for ``release`` before it answers "done"."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise AssertionError("only streamed here")

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        started.append("run")
        yield "thinking "
        await release.wait()
        yield "done"

    return FunctionModel(respond, stream_function=stream)


async def _first_chunk(stream: StreamResult) -> None:
    async for chunk in stream:
        assert chunk.type == "text-delta"
        return


async def test_abort_by_run_id_stops_only_that_run_of_a_shared_agent() -> None:
    release, started = asyncio.Event(), []
    agent = Agent("shared", _gated_model(release, started))
    first, second = await agent.stream("one"), await agent.stream("two")
    await _first_chunk(first)
    await _first_chunk(second)

    assert agent.abort(run_id=first.run_id) is True
    release.set()
    aborted, finished = await first.result(), await second.result()

    assert isinstance(aborted.error, RunAbortedError)
    assert (finished.error, finished.text) == (None, "thinking done")
    assert agent.get_state(run_id=first.run_id).status is RunStatus.CANCELLED
    assert agent.get_state(run_id=second.run_id).status is RunStatus.SUCCESS


async def test_a_streams_handle_aborts_and_reports_its_own_run() -> None:
    release, started = asyncio.Event(), []
    agent = Agent("shared", _gated_model(release, started))
    first, second = await agent.stream("one"), await agent.stream("two")
    await _first_chunk(first)
    await _first_chunk(second)
    assert first.state.status is second.state.status is RunStatus.RUNNING
    assert agent.get_state(run_id=second.run_id).status is RunStatus.RUNNING

    second.abort()
    release.set()
    await first.result()
    await second.result()

    assert (first.state.status, second.state.status) == (RunStatus.SUCCESS, RunStatus.CANCELLED)
    assert first.state.run_id == first.run_id


async def test_abort_without_a_run_id_still_stops_every_run_of_the_agent() -> None:
    release, started = asyncio.Event(), []
    agent = Agent("shared", _gated_model(release, started))
    streams = [await agent.stream("one"), await agent.stream("two")]
    for stream in streams:
        await _first_chunk(stream)
    assert agent.abort() is True
    results = [await s.result() for s in streams]
    assert all(isinstance(r.error, RunAbortedError) for r in results)
    assert agent.abort() is False


async def test_a_run_id_the_agent_does_not_know_aborts_nothing_and_has_no_state() -> None:
    agent = Agent("a", scripted_model([text("hi")]))
    assert agent.abort(run_id="run_unknown") is False
    with pytest.raises(KeyError, match="run_unknown"):
        agent.get_state(run_id="run_unknown")


async def test_get_state_by_run_id_knows_the_last_runs_that_ended() -> None:
    agent = Agent("a", scripted_model([text("hi")] * (ENDED_RUNS_KEPT + 1)))
    results = [await agent.generate("hi") for _ in range(ENDED_RUNS_KEPT + 1)]
    newest = results[-1].run_id
    assert agent.get_state(run_id=newest).status is RunStatus.SUCCESS
    assert agent.get_state(run_id=results[1].run_id).status is RunStatus.SUCCESS
    with pytest.raises(KeyError):
        agent.get_state(run_id=results[0].run_id)
