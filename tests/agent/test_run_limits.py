"""An agent's limits on a run: ``timeout_s`` for the whole run, ``tool_timeout_s`` per tool call,
``max_output_tokens`` over every model call. Timeouts here are small and real (0.2 s) against
work that never ends on its own (an ``asyncio.Event`` nobody sets)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from runyard.agent import Agent
from runyard.errors import ConfigurationError, OutputTokensExceededError, RunTimeoutError
from runyard.runtime import AgentState, InMemoryCheckpointStore, RunStatus
from runyard.testing import ToolCall, Turn, TurnUsage, call, scripted_model, text
from runyard.tools import tool


async def _never() -> None:
    """Wait on an event nobody can set: only a limit stops it."""
    await asyncio.Event().wait()


@tool
async def wait_forever() -> str:
    """Wait for something that never happens."""
    await _never()
    return "unreachable"


@tool(requires_approval=True)
def publish(page: str) -> str:
    """Publish a page."""
    return f"published {page}"


def _tool_returns(request: pai.ModelMessage) -> list[tuple[str, object, str]]:
    assert isinstance(request, pai.ModelRequest)
    return [
        (p.tool_call_id, p.content, p.outcome)
        for p in request.parts
        if isinstance(p, pai.ToolReturnPart)
    ]


# -- timeout_s --------------------------------------------------------------------------------


async def test_a_run_that_outlives_timeout_s_fails_with_a_timeout_while_a_tool_runs() -> None:
    model = scripted_model([call("wait_forever", id="w")])
    agent = Agent("slow", model, tools=[wait_forever], timeout_s=0.2)

    result = await agent.generate("go")

    assert isinstance(result.error, RunTimeoutError)
    assert result.error.reason == "timeout"
    assert str(result.error) == "Agent run timed out after 0.2s"
    assert result.finish_reason == "error"
    assert agent.get_state(result.run_id).status is RunStatus.FAILED


async def test_a_model_call_that_hangs_is_stopped_by_timeout_s_and_the_stream_says_so() -> None:
    async def hang(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "Let me think"
        await _never()

    agent = Agent("hung", FunctionModel(stream_function=hang), timeout_s=0.2)

    chunks = [chunk async for chunk in await agent.stream("hello")]

    assert [c.type for c in chunks] == ["text-delta", "error", "finish"]
    assert isinstance(chunks[1].error, RunTimeoutError)  # type: ignore[union-attr]
    assert chunks[-1].status is RunStatus.FAILED  # type: ignore[union-attr]


async def test_a_run_within_timeout_s_is_untouched() -> None:
    agent = Agent("quick", scripted_model([text("done")]), timeout_s=30)
    result = await agent.generate("go")
    assert (result.text, result.error) == ("done", None)


@pytest.mark.slow
async def test_time_suspended_does_not_count_and_each_segment_adds_its_own() -> None:
    store = InMemoryCheckpointStore()
    model = scripted_model([call("publish", {"page": "a"}, id="p"), text("published")])
    agent = Agent("pub", model, tools=[publish], timeout_s=1.0, checkpoint_store=store)

    suspended = await agent.generate("publish a")
    saved = await store.load(suspended.run_id)
    assert saved is not None
    spent = AgentState.model_validate(saved).run_seconds
    assert 0 < spent < 1.0
    await asyncio.sleep(1.2)  # longer than timeout_s, spent waiting for the approval
    resumed = await agent.approve("generate", run_id=suspended.run_id, tool_call_id="p")

    assert (resumed.text, resumed.error) == ("published", None)
    assert agent.get_state(suspended.run_id).run_seconds > spent


async def test_a_resumed_run_keeps_what_earlier_segments_spent() -> None:
    store = InMemoryCheckpointStore()
    model = scripted_model([call("publish", {"page": "a"}, id="p"), text("never said")])
    agent = Agent("pub", model, tools=[publish], timeout_s=5, checkpoint_store=store)
    suspended = await agent.generate("publish a")
    saved = await store.load(suspended.run_id)
    assert saved is not None
    await store.save(suspended.run_id, {**saved, "run_seconds": 5.0})  # its time is used up

    resumed = await agent.approve("generate", run_id=suspended.run_id, tool_call_id="p")

    assert isinstance(resumed.error, RunTimeoutError)
    assert model.remaining == 1


# -- tool_timeout_s ---------------------------------------------------------------------------


async def test_a_tool_call_past_tool_timeout_s_is_an_error_result_and_the_run_goes_on() -> None:
    model = scripted_model([call("wait_forever", id="w"), text("it never answered")])
    agent = Agent("t", model, tools=[wait_forever], tool_timeout_s=0.2)

    result = await agent.generate("go")

    assert (result.text, result.error) == ("it never answered", None)
    assert _tool_returns(model.requests[1][-1]) == [
        ("w", "Tool wait_forever timed out after 0.2s", "failed")
    ]


async def test_a_tools_own_shorter_timeout_wins_over_tool_timeout_s() -> None:
    quick = tool(timeout=0.1)(wait_forever.function)
    model = scripted_model([call("wait_forever", id="w"), text("ok")])
    await Agent("t", model, tools=[quick], tool_timeout_s=60).generate("go")
    assert _tool_returns(model.requests[1][-1])[0][1] == "Tool wait_forever timed out after 0.1s"


async def test_a_tools_own_timeout_error_is_a_failure_not_the_limit() -> None:
    @tool
    async def flaky() -> str:
        """Time out on its own."""
        raise TimeoutError("upstream took too long")

    model = scripted_model([call("flaky", id="f"), text("ok")])
    await Agent("t", model, tools=[flaky], tool_timeout_s=60).generate("go")
    assert _tool_returns(model.requests[1][-1])[0][1] == "TimeoutError: upstream took too long"


# -- max_output_tokens ------------------------------------------------------------------------


def _counting_model(outputs: list[int], asked: list[int | None]) -> FunctionModel:
    """Calls ``wait_forever``-free tool ``note`` until the last turn; records ``max_tokens``."""

    async def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        asked.append((info.model_settings or {}).get("max_tokens"))
        used = outputs.pop(0)
        part: pai.ModelResponsePart = (
            pai.ToolCallPart("note", {"text": "x"}) if outputs else pai.TextPart("done")
        )
        return pai.ModelResponse(parts=[part], usage=RequestUsage(output_tokens=used))

    return FunctionModel(respond)


@tool
def note(text: str) -> str:
    """Take a note."""
    return "noted"


async def test_each_call_is_asked_for_no_more_than_the_output_tokens_left() -> None:
    asked: list[int | None] = []
    agent = Agent(
        "n",
        _counting_model([6, 3], asked),
        tools=[note],
        max_output_tokens=10,
        model_settings={"max_tokens": 8},
    )

    result = await agent.generate("go")

    assert (result.text, result.error, result.usage.output_tokens) == ("done", None, 9)
    assert asked == [8, 4]  # the agent's own setting while it is lower, then what is left


async def test_a_run_that_spends_more_than_max_output_tokens_stops_with_a_clear_reason() -> None:
    model = scripted_model(
        [
            Turn(tool_calls=[ToolCall("note", {"text": "a"})], usage=TurnUsage(output_tokens=6)),
            Turn(tool_calls=[ToolCall("note", {"text": "b"})], usage=TurnUsage(output_tokens=6)),
            text("never reached"),
        ]
    )
    agent = Agent("n", model, tools=[note], max_output_tokens=10)

    result = await agent.generate("go")

    assert isinstance(result.error, OutputTokensExceededError)
    assert result.error.reason == "max_output_tokens"
    assert str(result.error) == (
        "Agent run stopped: its model calls used 12 output tokens of the 10 max_output_tokens allows"
    )
    assert result.usage.output_tokens == 12
    assert model.remaining == 1
    assert [m.role for m in result.messages] == ["assistant", "tool", "assistant"]  # type: ignore[union-attr]


async def test_a_call_cut_short_at_exactly_the_budget_stops_the_run() -> None:
    async def cut(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(
            parts=[pai.TextPart("half an ans")],
            usage=RequestUsage(output_tokens=5),
            finish_reason="length",
        )

    result = await Agent("n", FunctionModel(cut), max_output_tokens=5).generate("go")

    assert isinstance(result.error, OutputTokensExceededError)


async def test_an_answer_that_fits_the_budget_exactly_completes() -> None:
    model = scripted_model([text("done", usage=TurnUsage(output_tokens=5))])
    result = await Agent("n", model, max_output_tokens=5).generate("go")
    assert (result.text, result.error) == ("done", None)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"timeout_s": 0}, "timeout_s must be a positive number of seconds"),
        ({"tool_timeout_s": -1}, "tool_timeout_s must be a positive number of seconds"),
        ({"max_output_tokens": 0}, "max_output_tokens must be at least 1"),
    ],
)
def test_limits_that_could_never_be_met_are_refused(options: dict[str, int], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Agent("x", scripted_model([]), **options)  # type: ignore[arg-type]
