"""The tool loop through the public Agent: results, events, errors, windows, usage."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass

import pytest
from pydantic import BaseModel
from pydantic_ai.messages import ModelRequest, ToolReturnPart

from runyard.agent import Agent
from runyard.errors import ConfigurationError, MaxIterationsError
from runyard.messages import AgentMessage, CustomMessage, ToolResultPart
from runyard.runtime import AgentEvent, AgentEventData, RunStatus, ToolEventChunk, ToolResultChunk
from runyard.testing import ToolCall, Turn, TurnUsage, call, scripted_model, text
from runyard.tools import ToolContext, ToolEvent, ToolProgress, tool


@tool
async def add(a: int, b: int) -> dict[str, int]:
    """Add two numbers."""
    return {"sum": a + b}


def _returns(model_request: object) -> list[ToolReturnPart]:
    assert isinstance(model_request, ModelRequest)
    return [p for p in model_request.parts if isinstance(p, ToolReturnPart)]


async def test_generate_runs_a_tool_and_returns_the_final_answer() -> None:
    model = scripted_model([call("add", {"a": 2, "b": 3}, id="c1"), text("The sum is 5.")])
    agent = Agent("calc", model, "You add.", [add])

    result = await agent.generate("2+3?")

    assert result.text == "The sum is 5."
    assert result.finish_reason == "stop"
    assert result.error is None
    assert [m.role for m in result.messages] == ["assistant", "tool", "assistant"]  # type: ignore[union-attr]
    tool_message = result.messages[1]
    assert isinstance(tool_message, AgentMessage)
    assert tool_message.parts == [
        ToolResultPart(tool_call_id="c1", tool_name="add", result={"sum": 5})
    ]
    assert [(r.tool_name, r.args, r.output) for r in result.tool_calls] == [
        ("add", {"a": 2, "b": 3}, {"sum": 5})
    ]
    assert agent.get_state().status is RunStatus.SUCCESS
    model.expect_no_more_turns()


async def test_the_model_sees_the_instructions_the_tools_and_the_tool_result() -> None:
    model = scripted_model([call("add", {"a": 1, "b": 1}, id="c1"), text("2")])
    await Agent("calc", model, "You add.", [add]).generate("1+1")
    assert model.tools_seen == [["add"], ["add"]]
    first = model.requests[0][-1]
    assert isinstance(first, ModelRequest)
    assert first.instructions == "You add."
    assert [(p.tool_call_id, p.content) for p in _returns(model.requests[1][-1])] == [
        ("c1", {"sum": 2})
    ]


async def test_lifecycle_events_arrive_in_order() -> None:
    seen: list[tuple[AgentEvent, dict[str, object]]] = []
    agent = Agent(
        "calc", scripted_model([call("add", {"a": 1, "b": 2}, id="c1"), text("3")]), tools=[add]
    )
    for event in AgentEvent:
        agent.on(event, lambda data: seen.append((data.event, data.payload)))

    result = await agent.generate("1+2")

    assert [e for e, _ in seen] == [
        AgentEvent.AGENT_START,
        AgentEvent.TURN_START,
        AgentEvent.TOOL_EXECUTION_START,
        AgentEvent.TOOL_EXECUTION_END,
        AgentEvent.TURN_END,
        AgentEvent.TURN_START,
        AgentEvent.TURN_END,
        AgentEvent.AGENT_END,
    ]
    assert seen[2][1] == {"toolCallId": "c1", "toolName": "add", "args": {"a": 1, "b": 2}}
    assert seen[3][1] == {
        "toolCallId": "c1",
        "toolName": "add",
        "result": {"sum": 3},
        "isError": False,
    }
    assert seen[4][1]["toolResults"] == [
        {"toolCallId": "c1", "result": {"sum": 3}, "isError": False}
    ]
    assert seen[-1][1] == {"messages": result.messages}


@pytest.mark.parametrize(
    ("turn", "error"),
    [
        (call("nope", {}, id="c1"), "Tool nope not found"),
        (
            call("add", {"a": "x", "b": 1}, id="c1"),
            "Invalid tool input: a: Input should be a valid integer",
        ),
    ],
)
async def test_unknown_tools_and_invalid_arguments_become_errors_the_model_sees(
    turn: Turn, error: str
) -> None:
    model = scripted_model([turn, text("sorry")])
    result = await Agent("calc", model, tools=[add]).generate("go")
    (returned,) = _returns(model.requests[1][-1])
    assert str(returned.content).startswith(error)
    assert result.finish_reason == "stop"
    tool_message = result.messages[1]
    assert isinstance(tool_message, AgentMessage)
    assert tool_message.tool_results[0].is_error


async def test_a_raising_tool_and_a_timed_out_tool_become_error_results() -> None:
    @tool
    def broken() -> None:
        """Always fails."""
        raise RuntimeError("disk on fire")

    @tool(timeout=0.01)
    async def slow() -> None:
        """Never finishes in time."""
        await asyncio.sleep(10)

    model = scripted_model(
        [Turn(tool_calls=[ToolCall("broken", id="b"), ToolCall("slow", id="s")]), text("ok")]
    )
    result = await Agent("t", model, tools=[broken, slow]).generate("go")
    assert [(p.tool_call_id, p.content) for p in _returns(model.requests[1][-1])] == [
        ("b", "RuntimeError: disk on fire"),
        ("s", "Tool slow timed out after 0.01s"),
    ]
    assert result.text == "ok"


async def test_calls_run_in_windows_settled_together() -> None:
    log: list[str] = []

    @tool
    async def step(name: str) -> str:
        """Record a step."""
        log.append(f"start {name}")
        await asyncio.sleep(0.01 if name == "a" else 0)
        log.append(f"end {name}")
        return name

    calls = [ToolCall("step", {"name": n}, id=n) for n in "abc"]
    model = scripted_model([Turn(tool_calls=calls), text("done")])
    await Agent("w", model, tools=[step], tool_call_concurrency=2).generate("go")
    assert log == ["start a", "start b", "end b", "end a", "start c", "end c"]


async def test_infinite_concurrency_runs_every_call_of_the_turn_at_once() -> None:
    started: list[str] = []
    gate = asyncio.Event()

    @tool
    async def wait(name: str) -> str:
        """Wait for the others."""
        started.append(name)
        if len(started) == 3:
            gate.set()
        await gate.wait()
        return name

    calls = [ToolCall("wait", {"name": n}, id=n) for n in "abc"]
    model = scripted_model([Turn(tool_calls=calls), text("done")])
    result = await Agent("w", model, tools=[wait], tool_call_concurrency=math.inf).generate("go")
    assert result.text == "done"
    assert sorted(started) == ["a", "b", "c"]


async def test_one_failing_call_does_not_cancel_its_siblings() -> None:
    @tool
    async def fail() -> None:
        """Fails at once."""
        raise ValueError("bad")

    @tool
    async def later() -> str:
        """Finishes after its sibling failed."""
        await asyncio.sleep(0.01)
        return "fine"

    model = scripted_model(
        [Turn(tool_calls=[ToolCall("fail", id="f"), ToolCall("later", id="l")]), text("ok")]
    )
    await Agent("w", model, tools=[fail, later], tool_call_concurrency=2).generate("go")
    assert [(p.tool_call_id, p.content) for p in _returns(model.requests[1][-1])] == [
        ("f", "ValueError: bad"),
        ("l", "fine"),
    ]


async def test_reaching_max_iterations_ends_both_modes_with_an_error_that_says_so() -> None:
    def loops() -> list[Turn]:
        return [call("add", {"a": 1, "b": 1}) for _ in range(3)]

    generated = await Agent("l", scripted_model(loops()), tools=[add], max_iterations=3).generate(
        "go"
    )
    assert generated.finish_reason == "error"
    assert isinstance(generated.error, MaxIterationsError)
    assert (
        str(generated.error) == "Agent loop exceeded 3 iterations without reaching a stop condition"
    )

    agent = Agent("l", scripted_model(loops()), tools=[add], max_iterations=3)
    chunks = [c async for c in await agent.stream("go")]
    assert [c.type for c in chunks[-2:]] == ["error", "finish"]
    assert isinstance(chunks[-2].error, MaxIterationsError)  # type: ignore[union-attr]
    assert agent.get_state().status is RunStatus.FAILED


async def test_a_model_failure_is_reported_on_the_result_and_as_an_error_event() -> None:
    errors: list[AgentEventData] = []
    agent = Agent("f", scripted_model([]))
    agent.on(AgentEvent.ERROR, errors.append)
    result = await agent.generate("hi")
    assert result.finish_reason == "error"
    assert "script has only 0" in str(result.error)
    assert [e.payload["message"] for e in errors] == [str(result.error)]
    assert agent.get_state().status is RunStatus.FAILED


async def test_usage_is_summed_over_every_model_call() -> None:
    model = scripted_model(
        [
            Turn(tool_calls=[ToolCall("add", {"a": 1, "b": 1})], usage=TurnUsage(10, 2)),
            Turn(text="2", usage=TurnUsage(15, 1)),
        ]
    )
    result = await Agent("u", model, tools=[add]).generate("go")
    assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.total_tokens) == (
        25,
        3,
        28,
    )
    assert result.usage.requests == 2


async def test_structured_output_is_validated_into_the_output_type() -> None:
    class Weather(BaseModel):
        city: str
        degrees: int

    model = scripted_model([Turn(output={"city": "Oslo", "degrees": 4})])
    result = await Agent("s", model, output_type=Weather).generate("weather?")
    assert result.structured_output == Weather(city="Oslo", degrees=4)
    chunks = [
        c
        async for c in await Agent(
            "s", scripted_model([Turn(output={"city": "Rome", "degrees": 20})]), output_type=Weather
        ).stream("w")
    ]
    assert chunks[-1].structured_output == Weather(city="Rome", degrees=20)  # type: ignore[union-attr]


async def test_to_model_output_shapes_what_the_model_sees_and_to_message_adds_a_ui_row() -> None:
    @tool(
        to_model_output=lambda rows: {"count": len(rows)},
        to_message=lambda rows: CustomMessage(type="table", data=rows),
    )
    def query() -> list[int]:
        """Run a query."""
        return [1, 2, 3]

    model = scripted_model([call("query", id="q"), text("three rows")])
    result = await Agent("m", model, tools=[query]).generate("go")
    assert [p.content for p in _returns(model.requests[1][-1])] == [{"count": 3}]
    assert result.tool_calls[0].output == [1, 2, 3]
    custom = [m for m in result.messages if isinstance(m, CustomMessage)]
    assert [(c.type, c.data) for c in custom] == [("table", [1, 2, 3])]
    assert not any("table" in str(r) for r in model.requests[1])


@dataclass(frozen=True, slots=True)
class Rows(ToolEvent):
    done: int


async def test_tool_events_reach_the_stream_typed_and_in_order() -> None:
    @tool
    async def work(ctx: ToolContext) -> str:
        """Work in steps."""
        ctx.progress("half way")
        ctx.emit(Rows(done=3))
        return "done"

    agent = Agent("p", scripted_model([call("work", id="w"), text("ok")]), tools=[work])
    chunks = [c async for c in await agent.stream("go")]
    of_call = [c for c in chunks if getattr(c, "tool_call_id", None) == "w"]
    assert [c.type for c in of_call] == [
        "tool-call-delta",
        "tool-execution-start",
        "tool-event",
        "tool-event",
        "tool-result",
    ]
    events = [c for c in of_call if isinstance(c, ToolEventChunk)]
    assert [(c.tool_name, c.event) for c in events] == [
        ("work", ToolProgress("half way")),
        ("work", Rows(done=3)),
    ]


async def test_emitting_anything_but_a_tool_event_fails_the_call_where_it_happened() -> None:
    @tool
    async def work(ctx: ToolContext) -> str:
        """Work."""
        ctx.emit({"type": "status", "payload": {"message": "hi"}})  # type: ignore[arg-type]
        return "done"

    agent = Agent("p", scripted_model([call("work", id="w"), text("ok")]), tools=[work])
    chunks = [c async for c in await agent.stream("go")]
    (result,) = [c for c in chunks if isinstance(c, ToolResultChunk)]
    assert result.is_error
    assert result.output == "TypeError: ToolContext.emit takes a ToolEvent, not dict"
    assert not any(isinstance(c, ToolEventChunk) for c in chunks)


def test_bad_configuration_is_refused_early() -> None:
    model = scripted_model([])
    with pytest.raises(ConfigurationError, match="tool_call_concurrency"):
        Agent("x", model, tool_call_concurrency=0)
    with pytest.raises(ConfigurationError, match="tool_call_concurrency"):
        Agent("x", model, tool_call_concurrency=1.5)
    with pytest.raises(ConfigurationError, match="Two tools are named 'add'"):
        Agent("x", model, tools=[add, add])
    with pytest.raises(ConfigurationError, match="stream_buffer"):
        Agent("x", model, stream_buffer=0)


async def test_run_dependencies_reach_the_tool_context() -> None:
    @tool
    async def whoami(ctx: ToolContext) -> str:
        """Name the caller."""
        return f"{ctx.deps['user_name']} on {ctx.thread_id}"

    model = scripted_model([call("whoami", id="w"), text("ok")])
    result = await Agent("d", model, tools=[whoami]).generate("go", deps={"user_name": "ann"})
    assert result.tool_calls[0].output == "ann on None"


def test_a_new_agent_reports_an_idle_state_with_an_empty_message_list() -> None:
    state = Agent("i", scripted_model([])).get_state()
    assert state.status is RunStatus.IDLE
    assert state.message_list.model_dump() == {
        "messages": [],
        "history_ids": [],
        "input_ids": [],
        "response_ids": [],
    }
    assert state.pending_tool_calls == {}


async def test_an_agent_stops_a_tool_loop_after_20_iterations_by_default() -> None:
    model = scripted_model([call("add", {"a": 1, "b": 1}) for _ in range(20)])
    result = await Agent("l", model, tools=[add]).generate("loop")
    assert isinstance(result.error, MaxIterationsError)
    assert result.error.max_iterations == 20
    assert len(model.requests) == 20
    model.expect_no_more_turns()
