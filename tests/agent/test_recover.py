"""Durable steps and recovery: a run whose process died is carried on from its journal.

The first agent's run is "killed" by cancelling its task outright (nothing more is written,
as when a process dies); a second agent — another process — recovers it from what the journal
held. A tool counts its executions: a settled call never runs again.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from counting_tool import Counter
from runyard.agent import Agent
from runyard.runtime import INTERRUPTED_TOOL_ERROR, InMemoryRunJournal, RunStatus
from runyard.testing import ToolCall, Turn, scripted_model, text
from runyard.tools import Tool


def _tools(counters: dict[str, Counter], *, retry_safe: bool) -> list[Tool]:
    made = []
    for name, counter in counters.items():
        made.append(
            Tool.from_function(
                counter.run, name=name, description=f"Does {name}.", retry_safe=retry_safe
            )
        )
    return made


async def _die(task: asyncio.Task[Any], until: asyncio.Event) -> None:
    """Wait for ``until``, then kill the run: its task is cancelled and writes nothing more."""
    await asyncio.wait_for(until.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def _tool_results(model_requests: list[list[ModelMessage]]) -> list[Any]:
    last = model_requests[-1]
    return [
        p.content for m in last for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)
    ]


@pytest.mark.parametrize("retry_safe", [True, False])
async def test_a_call_in_flight_runs_again_only_when_its_tool_is_retry_safe(
    retry_safe: bool,
) -> None:
    journal = InMemoryRunJournal()
    counter = Counter()
    counter.hang = True
    first = Agent(
        "a",
        scripted_model([Turn(tool_calls=[ToolCall("book", {"item": "x"}, "c1")])]),
        tools=_tools({"book": counter}, retry_safe=retry_safe),
    )
    run = asyncio.create_task(first.generate("go", journal=journal, run_id="run-1"))
    await _die(run, counter.blocked)
    assert journal.state is not None
    assert journal.state.status is RunStatus.RUNNING
    assert set(journal.state.pending_tool_calls) == {"c1"}
    assert journal.calls["c1"].settled is False

    counter.hang = False
    model = scripted_model([text("booked")])
    second = Agent("a", model, tools=_tools({"book": counter}, retry_safe=retry_safe))
    result = await second.recover("generate", journal.state, journal.calls, journal=journal)

    assert result.text == "booked"
    assert result.run_id == "run-1"
    (seen,) = _tool_results(model.requests)
    if retry_safe:
        assert (counter.started, counter.done) == (2, 1)
        assert seen == "did x"
    else:
        assert (counter.started, counter.done) == (1, 0)
        assert seen == INTERRUPTED_TOOL_ERROR.format(name="book")
    assert journal.calls["c1"].settled


async def test_settled_calls_of_a_window_are_replayed_never_run_again() -> None:
    journal = InMemoryRunJournal()
    quick, slow = Counter(), Counter()
    slow.hang = True
    calls = [ToolCall("quick", {"item": "a"}, "c1"), ToolCall("slow", {"item": "b"}, "c2")]
    first = Agent(
        "a",
        scripted_model([Turn(tool_calls=calls)]),
        tools=_tools({"quick": quick, "slow": slow}, retry_safe=True),
        tool_call_concurrency=math.inf,
    )
    run = asyncio.create_task(first.generate("go", journal=journal))
    await _die(run, slow.blocked)
    assert journal.calls["c1"].settled
    assert not journal.calls["c2"].settled

    slow.hang = False
    model = scripted_model([text("both done")])
    second = Agent("a", model, tools=_tools({"quick": quick, "slow": slow}, retry_safe=True))
    assert journal.state is not None
    result = await second.recover("generate", journal.state, journal.calls)

    assert result.text == "both done"
    assert (quick.started, quick.done) == (1, 1)
    assert (slow.started, slow.done) == (2, 1)
    assert _tool_results(model.requests) == ["did a", "did b"]


def _hanging_after_first(second_call: asyncio.Event) -> FunctionModel:
    """Asks for the ``book`` tool, then hangs in its second call (the process dies there)."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("book", {"item": "y"}, "c1")])
        second_call.set()
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "never"

    return FunctionModel(respond, stream_function=stream)


async def test_a_model_call_in_flight_is_made_again_and_settled_tools_are_not() -> None:
    journal = InMemoryRunJournal()
    counter = Counter()
    second_call = asyncio.Event()
    first = Agent(
        "a", _hanging_after_first(second_call), tools=_tools({"book": counter}, retry_safe=False)
    )
    run = asyncio.create_task(first.generate("go", journal=journal))
    await _die(run, second_call)
    assert journal.calls["c1"].settled

    model = scripted_model([text("all done")])
    second = Agent("a", model, tools=_tools({"book": counter}, retry_safe=False))
    assert journal.state is not None
    result = await second.recover("generate", journal.state, journal.calls)

    assert result.text == "all done"
    assert (counter.started, counter.done) == (1, 1)
    assert _tool_results(model.requests) == ["did y"]


async def test_each_step_is_one_write_for_the_response_and_one_per_settled_call() -> None:
    journal = InMemoryRunJournal()
    counter = Counter()
    turns = [Turn(tool_calls=[ToolCall("book", {"item": str(i)}) for i in range(3)]), text("ok")]
    agent = Agent(
        "a",
        scripted_model(turns),
        tools=_tools({"book": counter}, retry_safe=False),
        tool_call_concurrency=math.inf,
    )
    result = await agent.generate("go", journal=journal)
    assert result.text == "ok"
    assert journal.writes == 1 + 3
    assert all(c.settled for c in journal.calls.values())
