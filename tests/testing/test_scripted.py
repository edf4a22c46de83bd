"""The scripted model plays its turns in order, streamed or not, and records what it was sent."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import messages as pai

from runyard.messages import AgentMessage, ReasoningPart, TextPart, ToolCallPart
from runyard.models import (
    ModelTurn,
    OutputSpec,
    ReasoningDelta,
    TextDelta,
    ToolSpec,
    request_model,
    stream_model,
)
from runyard.testing import (
    ScriptExhaustedError,
    ToolCall,
    Turn,
    TurnUsage,
    call,
    scripted_model,
    text,
)

CALCULATOR = ToolSpec("calculator", "Arithmetic.", {"type": "object"})
HELLO = [AgentMessage.user("hello")]


async def _stream(model: Any, **kwargs: Any) -> list[Any]:
    kwargs.setdefault("tools", [CALCULATOR])
    return [item async for item in stream_model(model, HELLO, instructions=None, **kwargs)]


async def test_turns_are_played_in_order() -> None:
    model = scripted_model([call("calculator", {"expression": "1+1"}, id="c1"), text("2")])
    first = await request_model(model, HELLO, instructions=None, tools=[CALCULATOR])
    second = await request_model(model, HELLO, instructions=None, tools=[CALCULATOR])
    assert first.message.parts == [
        ToolCallPart(tool_call_id="c1", tool_name="calculator", args={"expression": "1+1"})
    ]
    assert second.message.parts == [TextPart(text="2")]
    model.expect_no_more_turns()


async def test_streamed_text_is_chunked_by_words() -> None:
    model = scripted_model([Turn(text="one two  three", reasoning="hmm")])
    items = await _stream(model)
    assert items[:-1] == [
        ReasoningDelta("hmm"),
        TextDelta("one"),
        TextDelta(" two"),
        TextDelta("  three"),
    ]
    assert items[-1].message.parts == [ReasoningPart(text="hmm"), TextPart(text="one two  three")]


async def test_streamed_and_requested_turns_match() -> None:
    turn = Turn(text="ok", tool_calls=[ToolCall("calculator", {"x": 1}, id="c1")])
    requested = await request_model(
        scripted_model([turn]), HELLO, instructions=None, tools=[CALCULATOR]
    )
    streamed = (await _stream(scripted_model([turn])))[-1]
    assert requested.message.parts == streamed.message.parts
    assert requested.finish_reason == streamed.finish_reason == "tool-calls"


@pytest.mark.parametrize("streamed", [False, True])
async def test_scripted_usage_is_reported(streamed: bool) -> None:
    model = scripted_model([text("hi", usage=TurnUsage(input_tokens=11, output_tokens=3))])
    if streamed:
        turn: ModelTurn = (await _stream(model))[-1]
    else:
        turn = await request_model(model, HELLO, instructions=None, tools=[])
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (11, 3)


@pytest.mark.parametrize("streamed", [False, True])
async def test_output_calls_the_output_tool(streamed: bool) -> None:
    model = scripted_model([Turn(output={"n": 3})])
    spec = OutputSpec({"type": "object"})
    if streamed:
        turn: ModelTurn = (await _stream(model, output=spec))[-1]
    else:
        turn = await request_model(model, HELLO, instructions=None, tools=[], output=spec)
    assert turn.output == {"n": 3}
    assert turn.message.parts == []


async def test_it_records_what_it_was_sent() -> None:
    model = scripted_model([text("a"), text("b")])
    await request_model(model, HELLO, instructions="Be brief.", tools=[CALCULATOR])
    await request_model(model, HELLO, instructions=None, tools=[])
    assert model.tools_seen == [["calculator"], []]
    first = model.requests[0][0]
    assert isinstance(first, pai.ModelRequest)
    assert first.instructions == "Be brief."
    assert model.remaining == 0


async def test_a_turn_can_be_built_from_the_history() -> None:
    def echo(messages: list[pai.ModelMessage]) -> Turn:
        return text(f"{len(messages)} message(s)")

    model = scripted_model([echo])
    turn = await request_model(model, HELLO, instructions=None, tools=[])
    assert turn.message.text == "1 message(s)"


async def test_running_out_of_turns_is_a_clear_error() -> None:
    model = scripted_model([text("only")])
    await request_model(model, HELLO, instructions=None, tools=[])
    with pytest.raises(ScriptExhaustedError, match="turn 2"):
        await request_model(model, HELLO, instructions=None, tools=[])


def test_unplayed_turns_fail_the_final_check() -> None:
    model = scripted_model([text("never")])
    with pytest.raises(AssertionError, match="1 scripted turn"):
        model.expect_no_more_turns()


async def test_an_output_without_an_output_tool_is_a_script_error() -> None:
    model = scripted_model([Turn(output={"n": 1})])
    with pytest.raises(AssertionError, match="no output tool"):
        await request_model(model, HELLO, instructions=None, tools=[])


async def test_generated_call_ids_are_unique() -> None:
    model = scripted_model([Turn(tool_calls=[ToolCall("a"), ToolCall("b")])])
    turn = await request_model(model, HELLO, instructions=None, tools=[])
    ids = [c.tool_call_id for c in turn.message.tool_calls]
    assert len(set(ids)) == 2
