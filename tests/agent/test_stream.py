"""Streaming: the whole chunk sequence, and that it tells the same story as generate."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from runyard.agent import Agent
from runyard.messages import AgentMessage
from runyard.runtime import RunStatus, ToolEventChunk
from runyard.testing import Turn, call, scripted_model, text
from runyard.tools import ToolContext, ToolProgress, tool


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


async def _until(predicate: Callable[[], bool], rounds: int = 1000) -> None:
    """Let every ready task run (no clock involved) until ``predicate`` holds."""
    for _ in range(rounds):
        if predicate():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


async def _idle(rounds: int = 200) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0)


_WORDS = " ".join(f"w{i}" for i in range(40))


async def test_a_slow_reader_bounds_the_stream_and_holds_the_loop() -> None:
    agent = Agent("talker", scripted_model([Turn(text=_WORDS)]), stream_buffer=4)
    stream = await agent.stream("talk")

    await _until(lambda: stream.buffered == 4)
    await _idle()
    assert stream.buffered == 4
    assert stream.state.status is RunStatus.RUNNING

    chunks = []
    async for chunk in stream:
        chunks.append(chunk)
        assert stream.buffered <= 4
        await _idle(5)
    assert [c.type for c in chunks] == ["text-delta"] * 40 + ["message", "finish"]
    assert "".join(c.delta for c in chunks[:40]) == _WORDS  # type: ignore[union-attr]
    assert stream.state.status is RunStatus.SUCCESS


async def test_a_sync_tool_waits_in_emit_while_the_stream_is_full() -> None:
    @tool
    def count(ctx: ToolContext) -> str:
        """Count to ten, reporting each step."""
        for step in range(10):
            ctx.progress(f"step {step}")
        return "counted"

    model = scripted_model([call("count", id="c"), text("done")])
    agent = Agent("counter", model, tools=[count], stream_buffer=2)
    stream = await agent.stream("count")
    chunks = []
    async for chunk in stream:
        chunks.append(chunk)
        assert stream.buffered <= 2
    of_call = [c.type for c in chunks if getattr(c, "tool_call_id", None) == "c"]
    assert of_call == ["tool-call-delta", "tool-execution-start"] + ["tool-event"] * 10 + [
        "tool-result"
    ]
    events = [c.event for c in chunks if isinstance(c, ToolEventChunk)]
    assert events == [ToolProgress(f"step {step}") for step in range(10)]


async def test_events_an_async_tool_emits_past_the_bound_all_arrive_in_order() -> None:
    @tool
    async def count(ctx: ToolContext) -> str:
        """Count to ten, reporting each step."""
        for step in range(10):
            ctx.progress(f"step {step}")
        return "counted"

    model = scripted_model([call("count", id="c"), text("done")])
    agent = Agent("counter", model, tools=[count], stream_buffer=2)
    chunks = [c async for c in await agent.stream("count")]
    events = [c.event for c in chunks if isinstance(c, ToolEventChunk)]
    assert events == [ToolProgress(f"step {step}") for step in range(10)]
    assert chunks[-1].type == "finish"


async def test_a_reader_that_stops_early_does_not_hold_the_run() -> None:
    agent = Agent("talker", scripted_model([Turn(text=_WORDS)]), stream_buffer=2)
    stream = await agent.stream("talk")
    async for _ in stream:
        break
    result = await stream.result()
    assert result.text == _WORDS
    assert stream.state.status is RunStatus.SUCCESS


async def test_awaiting_the_result_unread_gives_up_the_chunks_of_a_small_buffer() -> None:
    stream = await Agent("talker", scripted_model([Turn(text=_WORDS)]), stream_buffer=1).stream(
        "talk"
    )
    result = await stream.result()
    assert result.text == _WORDS
    assert [c async for c in stream] == []
