"""Streaming: the whole chunk sequence, and that it tells the same story as generate."""

from __future__ import annotations

from typing import Any

from runyard.agent import Agent
from runyard.messages import AgentMessage
from runyard.testing import Turn, call, scripted_model
from runyard.tools import tool


@tool
async def add(a: int, b: int) -> dict[str, int]:
    """Add two numbers."""
    return {"sum": a + b}


def _script() -> list[Turn]:
    return [
        Turn(
            reasoning="need a tool",
            tool_calls=[call("add", {"a": 2, "b": 3}, id="c1").tool_calls[0]],
        ),
        Turn(text="The sum is 5."),
    ]


def _describe(chunk: Any) -> tuple[Any, ...]:
    if chunk.type in ("text-delta", "reasoning-delta"):
        return (chunk.type, chunk.delta)
    if chunk.type == "tool-call-delta":
        return (chunk.type, chunk.tool_name)
    if chunk.type == "message":
        return (chunk.type, chunk.message.role)
    if chunk.type == "tool-execution-start":
        return (chunk.type, chunk.tool_name, chunk.args)
    if chunk.type == "tool-result":
        return (chunk.type, chunk.tool_call_id, chunk.output, chunk.is_error)
    if chunk.type == "finish":
        return (chunk.type, chunk.finish_reason, chunk.usage.requests)
    return (chunk.type,)


async def test_a_streamed_run_yields_the_whole_chunk_sequence_in_order() -> None:
    agent = Agent("calc", scripted_model(_script()), tools=[add])
    stream = await agent.stream("2+3?")
    assert stream.run_id.startswith("run_")
    chunks = [_describe(c) async for c in stream]
    assert chunks == [
        ("reasoning-delta", "need a tool"),
        ("tool-call-delta", "add"),
        ("message", "assistant"),
        ("tool-execution-start", "add", {"a": 2, "b": 3}),
        ("tool-result", "c1", {"sum": 5}, False),
        ("text-delta", "The"),
        ("text-delta", " sum"),
        ("text-delta", " is"),
        ("text-delta", " 5."),
        ("message", "assistant"),
        ("finish", "stop", 2),
    ]


async def test_generate_and_stream_tell_the_same_story() -> None:
    generated = await Agent("calc", scripted_model(_script()), tools=[add]).generate("2+3?")
    stream = await Agent("calc", scripted_model(_script()), tools=[add]).stream("2+3?")
    streamed = await stream.result()

    def shape(messages: list[Any]) -> list[tuple[str, list[dict[str, Any]]]]:
        return [
            (m.role, [p.model_dump(exclude={"signature", "provider_name"}) for p in m.parts])
            for m in messages
            if isinstance(m, AgentMessage)
        ]

    assert shape(streamed.messages) == shape(generated.messages)
    assert (streamed.text, streamed.finish_reason) == (generated.text, generated.finish_reason)
    assert streamed.usage.requests == generated.usage.requests == 2


async def test_the_stream_result_can_be_awaited_without_reading_the_chunks() -> None:
    stream = await Agent("calc", scripted_model(_script()), tools=[add]).stream("2+3?")
    result = await stream.result()
    assert result.text == "The sum is 5."
    assert result.run_id == stream.run_id
