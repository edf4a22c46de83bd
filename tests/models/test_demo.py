"""The offline demo model, driven through the same façade as any provider."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic_ai import messages as pai
from pydantic_ai.models import ModelRequestParameters

from runyard.messages import AgentMessage, ReasoningPart, TextPart, ToolResultPart
from runyard.models import (
    DemoModel,
    ModelProviderError,
    ModelTurn,
    OutputSpec,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
    ToolSpec,
    request_model,
    resolve_model,
    stream_model,
)

DEMO = resolve_model("runyard:demo")
CALCULATOR = ToolSpec("calculator", "Arithmetic.", {"type": "object"})


async def _stream(messages: list[AgentMessage], **kwargs: Any) -> list[Any]:
    kwargs.setdefault("tools", [CALCULATOR])
    return [item async for item in stream_model(DEMO, messages, instructions=None, **kwargs)]


async def test_plain_text_is_echoed_after_a_short_reasoning_word_by_word() -> None:
    items = await _stream([AgentMessage.user("hello there")])
    turn = items[-1]
    assert isinstance(turn, ModelTurn)
    assert turn.message.parts == [
        ReasoningPart(text="The user said: 'hello there', I will echo it."),
        TextPart(text='You said: "hello there"'),
    ]
    texts = [i.text for i in items if isinstance(i, TextDelta)]
    assert texts == ["You", " said:", ' "hello', ' there"']
    first_text = next(n for n, i in enumerate(items) if isinstance(i, TextDelta))
    assert all(isinstance(i, ReasoningDelta) for i in items[:first_text])
    assert turn.finish_reason == "stop"
    assert turn.model_name == "runyard:demo"


async def test_tool_lines_become_one_turn_of_calls_in_order() -> None:
    prompt = '/tool calculator {"expression": "2+3*4"}\n/tool list_notes'
    items = await _stream([AgentMessage.user(prompt)])
    turn = items[-1]
    calls = turn.message.tool_calls
    assert [(c.tool_name, c.args) for c in calls] == [
        ("calculator", {"expression": "2+3*4"}),
        ("list_notes", {}),
    ]
    assert len({c.tool_call_id for c in calls}) == 2
    assert all(c.tool_call_id.startswith(f"call_{n}_") for n, c in enumerate(calls, 1))
    assert [type(i) for i in items[:-1]] == [ToolCallDelta, ToolCallDelta]
    assert turn.finish_reason == "tool-calls"


async def test_once_results_are_back_it_says_one_sentence_per_result() -> None:
    prompt = '/tool calculator {"expression": "2+3*4"}\n/tool save_note {"text": "x"}'
    history = [AgentMessage.user(prompt)]
    first = (await _stream(history))[-1]
    calculator, save_note = first.message.tool_calls
    history += [
        first.message,
        AgentMessage(
            role="tool",
            parts=[
                ToolResultPart(
                    tool_call_id=calculator.tool_call_id,
                    tool_name="calculator",
                    result={"result": 14},
                ),
                ToolResultPart(
                    tool_call_id=save_note.tool_call_id,
                    tool_name="save_note",
                    result="denied",
                    is_error=True,
                ),
            ],
        ),
    ]
    second = await request_model(DEMO, history, instructions=None, tools=[CALCULATOR])
    assert second.message.text == 'calculator returned {"result": 14}. save_note failed: denied.'
    assert second.message.tool_calls == []


async def test_delay_is_honoured_before_each_streamed_delta(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events: list[Any] = []
    real_sleep = asyncio.sleep

    async def recording_sleep(seconds: float) -> None:
        events.append(("sleep", seconds))
        await real_sleep(0)

    monkeypatch.setattr("runyard.models.demo.asyncio.sleep", recording_sleep)
    async for item in stream_model(
        DEMO, [AgentMessage.user("/delay 250\nhi")], instructions=None, tools=[]
    ):
        events.append(type(item).__name__)
    assert events[:4] == [("sleep", 0.25), "ReasoningDelta", ("sleep", 0.25), "ReasoningDelta"]
    deltas = [e for e in events if e in ("ReasoningDelta", "TextDelta")]
    assert events.count(("sleep", 0.25)) == len(deltas)
    assert events[-1] == "ModelTurn"


async def test_delay_applies_to_tool_turns_too(monkeypatch: pytest.MonkeyPatch) -> None:
    sleeps: list[float] = []

    async def recording_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    monkeypatch.setattr("runyard.models.demo.asyncio.sleep", recording_sleep)
    await _stream([AgentMessage.user("/delay 10\n/tool a {}\n/tool b {}")])
    assert sleeps == [0.01, 0.01]


async def test_a_delayed_demo_stream_can_be_cancelled() -> None:
    started = asyncio.Event()

    async def consume() -> None:
        async for _item in stream_model(
            DEMO, [AgentMessage.user("/delay 60000\nhi")], instructions=None, tools=[]
        ):
            started.set()

    task = asyncio.create_task(consume())
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not started.is_set()


async def test_structured_output_calls_the_output_tool_with_a_fitting_object() -> None:
    schema = {
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "count": {"type": "integer"},
            "ok": {"type": "boolean"},
            "kind": {"enum": ["a", "b"]},
            "inner": {"$ref": "#/$defs/Inner"},
            "optional": {"type": "string"},
        },
        "required": ["summary", "count", "ok", "kind", "inner"],
        "$defs": {
            "Inner": {
                "type": "object",
                "properties": {"tags": {"type": "array"}, "score": {"type": "number"}},
                "required": ["tags", "score"],
            }
        },
    }
    items = await _stream([AgentMessage.user("hi")], output=OutputSpec(schema))
    turn = items[-1]
    assert turn.output == {
        "summary": 'You said: "hi"',
        "count": 0,
        "ok": False,
        "kind": "a",
        "inner": {"tags": [], "score": 0},
    }
    assert [p.type for p in turn.message.parts] == ["reasoning"]
    assert not any(isinstance(i, ToolCallDelta | TextDelta) for i in items)


async def test_usage_is_estimated_and_free() -> None:
    turn = await request_model(DEMO, [AgentMessage.user("hello")], instructions=None, tools=[])
    assert turn.usage.input_tokens > 0
    assert turn.usage.output_tokens > 0
    assert turn.usage.cost == 0.0


async def test_the_demo_is_a_plain_pydantic_ai_model() -> None:
    model = DemoModel()
    request = pai.ModelRequest(parts=[pai.UserPromptPart("ping")])
    response = await model.request([request], None, ModelRequestParameters())
    assert response.text == 'You said: "ping"'
    assert (model.model_name, model.system) == ("demo", "runyard")


@pytest.mark.parametrize("call", ["stream", "request"])
async def test_a_fail_line_fails_the_call_as_a_provider_answering_that_status(call: str) -> None:
    messages = [AgentMessage.user("hello\n/fail 503")]
    calling = (
        _stream(messages)
        if call == "stream"
        else request_model(DEMO, messages, instructions=None, tools=[])
    )
    with pytest.raises(ModelProviderError) as failed:
        await calling
    error = failed.value
    assert (error.provider, error.model, error.status_code) == ("runyard", "runyard:demo", 503)
    assert str(error) == (
        "runyard:demo answered HTTP 503 Service Unavailable: "
        "the demo model was asked to fail with HTTP 503"
    )
