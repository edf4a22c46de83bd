"""One model call through the façade, over FunctionModel: deltas, the final turn, usage, cost."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel
from pydantic_ai.usage import RequestUsage

from runyard.messages import AgentMessage, ReasoningPart, TextPart, ToolCallPart
from runyard.models import (
    ModelTurn,
    OutputSpec,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    request_model,
    stream_model,
)

CALCULATOR = ToolSpec(
    "calculator",
    "Evaluates arithmetic.",
    {"type": "object", "properties": {"expression": {"type": "string"}}},
)
ANSWER = OutputSpec({"type": "object", "properties": {"n": {"type": "integer"}}})
HELLO = [AgentMessage.user("hello")]


async def _stream_all(model: FunctionModel, **kwargs: Any) -> list[Any]:
    kwargs.setdefault("instructions", None)
    kwargs.setdefault("tools", [])
    return [item async for item in stream_model(model, HELLO, **kwargs)]


async def _thinks_talks_and_calls(
    messages: list[pai.ModelMessage], info: AgentInfo
) -> AsyncIterator[str | dict[int, Any]]:
    yield {0: DeltaThinkingPart(content="Let me ")}
    yield {0: DeltaThinkingPart(content="think.", signature="sig")}
    yield "Working "
    yield "on it."
    yield {1: DeltaToolCall("calculator", '{"expression":', tool_call_id="c1")}
    yield {1: DeltaToolCall(json_args=' "2+2"}')}
    yield {2: DeltaToolCall("final_result", '{"n": 4}', tool_call_id="c2")}


async def test_stream_yields_deltas_in_order_then_the_turn_last() -> None:
    model = FunctionModel(stream_function=_thinks_talks_and_calls)
    items = await _stream_all(model, tools=[CALCULATOR], output=ANSWER)
    assert items[:-1] == [
        ReasoningDelta("Let me "),
        ReasoningDelta("think."),
        TextDelta("Working "),
        TextDelta("on it."),
        ToolCallDelta("c1", "calculator", '{"expression":'),
        ToolCallDelta("c1", None, ' "2+2"}'),
    ]
    turn = items[-1]
    assert isinstance(turn, ModelTurn)
    assert turn.message.role == "assistant"
    assert turn.message.parts == [
        ReasoningPart(text="Let me think.", signature="sig", provider_name="function"),
        TextPart(text="Working on it."),
        ToolCallPart(tool_call_id="c1", tool_name="calculator", args={"expression": "2+2"}),
    ]
    assert turn.output == {"n": 4}
    assert turn.finish_reason == "tool-calls"
    assert turn.usage.requests == 1


async def test_request_and_stream_give_the_same_turn() -> None:
    def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(
            parts=[
                pai.ThinkingPart("Let me think.", signature="sig", provider_name="function"),
                pai.TextPart("Working on it."),
                pai.ToolCallPart("calculator", '{"expression": "2+2"}', "c1"),
                pai.ToolCallPart("final_result", {"n": 4}, "c2"),
            ]
        )

    model = FunctionModel(respond, stream_function=_thinks_talks_and_calls)
    requested = await request_model(
        model, HELLO, instructions=None, tools=[CALCULATOR], output=ANSWER
    )
    streamed = (await _stream_all(model, tools=[CALCULATOR], output=ANSWER))[-1]
    assert requested.message.parts == streamed.message.parts
    assert (requested.output, requested.finish_reason) == (streamed.output, streamed.finish_reason)


async def test_the_model_is_told_the_tools_the_output_tool_and_the_instructions() -> None:
    seen: list[AgentInfo] = []

    def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        seen.append(info)
        return pai.ModelResponse(parts=[pai.TextPart("ok")])

    await request_model(
        FunctionModel(respond), HELLO, instructions="Be brief.", tools=[CALCULATOR], output=ANSWER
    )
    info = seen[0]
    assert [(t.name, t.description) for t in info.function_tools] == [
        ("calculator", "Evaluates arithmetic.")
    ]
    assert [(t.name, t.kind) for t in info.output_tools] == [("final_result", "output")]
    assert info.allow_text_output is False
    assert info.instructions == "Be brief."


@pytest.mark.parametrize(
    ("parts", "provider_reason", "expected"),
    [
        ([pai.TextPart("hi")], None, "stop"),
        ([pai.TextPart("hi")], "stop", "stop"),
        ([pai.TextPart("hi")], "length", "length"),
        ([pai.TextPart("")], "content_filter", "content-filter"),
        ([pai.TextPart("hi")], "error", "error"),
        ([pai.ToolCallPart("calculator", {}, "c1")], "stop", "tool-calls"),
        ([pai.ToolCallPart("final_result", {"n": 1}, "c1")], "tool_call", "stop"),
    ],
)
async def test_finish_reasons_are_normalised(
    parts: list[pai.ModelResponsePart], provider_reason: Any, expected: str
) -> None:
    def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(parts=parts, finish_reason=provider_reason)

    turn = await request_model(
        FunctionModel(respond), HELLO, instructions=None, tools=[CALCULATOR], output=ANSWER
    )
    assert turn.finish_reason == expected


async def test_usage_is_reported_and_priced_from_the_catalog() -> None:
    def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(
            parts=[pai.TextPart("hi")],
            usage=RequestUsage(
                input_tokens=1_000_000,
                output_tokens=1_000_000,
                cache_read_tokens=10,
                output_reasoning_tokens=5,
            ),
            provider_name="openai",
        )

    turn = await request_model(
        FunctionModel(respond, model_name="gpt-4o"), HELLO, instructions=None, tools=[]
    )
    usage = turn.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (
        1_000_000,
        1_000_000,
        2_000_000,
    )
    assert (usage.cache_read_tokens, usage.reasoning_tokens, usage.requests) == (10, 5, 1)
    assert usage.cost is not None
    assert usage.cost > 1.0  # gpt-4o is priced per million tokens in dollars
    assert turn.model_name == "function:gpt-4o"


async def test_an_unpriced_model_has_an_unknown_cost() -> None:
    def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(parts=[pai.TextPart("hi")], usage=RequestUsage(input_tokens=3))

    turn = await request_model(FunctionModel(respond), HELLO, instructions=None, tools=[])
    assert turn.usage.cost is None


async def test_invalid_tool_args_are_recorded_on_the_message() -> None:
    async def stream(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield {0: DeltaToolCall("calculator", '{"expression": ', tool_call_id="c1")}

    turn = (await _stream_all(FunctionModel(stream_function=stream), tools=[CALCULATOR]))[-1]
    assert turn.message.tool_calls == [
        ToolCallPart(tool_call_id="c1", tool_name="calculator", args={})
    ]
    assert turn.message.metadata["invalid_tool_args"] == {"c1": '{"expression": '}


async def test_output_tool_arguments_are_not_streamed_as_tool_call_deltas() -> None:
    async def stream(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield {0: DeltaToolCall("final_result", '{"n"', tool_call_id="c1")}
        yield {0: DeltaToolCall(json_args=": 7}")}

    items = await _stream_all(FunctionModel(stream_function=stream), output=ANSWER)
    assert len(items) == 1
    assert items[0].output == {"n": 7}
    assert items[0].message.parts == []


async def test_cancelling_the_consumer_closes_the_model_stream() -> None:
    first_delta = asyncio.Event()
    closed = asyncio.Event()

    async def endless(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        try:
            while True:
                yield "tick "
                await asyncio.sleep(0)
        finally:
            closed.set()

    async def consume() -> None:
        async for item in stream_model(
            FunctionModel(stream_function=endless), HELLO, instructions=None, tools=[]
        ):
            if isinstance(item, TextDelta):
                first_delta.set()

    task = asyncio.create_task(consume())
    await first_delta.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert closed.is_set()
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_settings_reach_the_model() -> None:
    seen: list[Any] = []

    def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        seen.append(info.model_settings)
        return pai.ModelResponse(parts=[pai.TextPart(json.dumps("ok"))])

    await request_model(
        FunctionModel(respond), HELLO, instructions=None, tools=[], settings={"temperature": 0.1}
    )
    assert seen[0]["temperature"] == 0.1


async def test_tool_call_args_stream_in_pieces_without_structured_output() -> None:
    async def stream(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        yield {0: DeltaToolCall("calculator", '{"expression":', tool_call_id="c1")}
        yield {0: DeltaToolCall(json_args=' "1"}')}

    items = await _stream_all(FunctionModel(stream_function=stream), tools=[CALCULATOR])
    assert items[:-1] == [
        ToolCallDelta("c1", "calculator", '{"expression":'),
        ToolCallDelta("c1", None, ' "1"}'),
    ]
