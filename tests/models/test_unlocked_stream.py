"""A model's stream is read without pydantic-ai's per-chunk lock, and still closes as before.

If a pydantic-ai release changes ``PeekableAsyncStream``'s private attributes, the first test
fails: runyard then reads through the lock again (correct, only slower; docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from pydantic_ai import messages as pai
from pydantic_ai.direct import model_request_stream
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.messages import AgentMessage
from runyard.models import TextDelta, stream_model
from runyard.models.unlocked_stream import unlock

HELLO = [AgentMessage.user("hello")]
WORDS = ["one ", "two ", "three ", "four"]


async def _words(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for word in WORDS:
        yield word


async def test_a_function_model_stream_is_unlocked_and_gives_every_event() -> None:
    request = [pai.ModelRequest.user_text_prompt("hello")]
    async with model_request_stream(FunctionModel(stream_function=_words), request) as stream:
        assert unlock(stream) == 1
        events = [event async for event in stream]
        response = stream.get()
    deltas = [e.delta.content_delta for e in events if isinstance(e, pai.PartDeltaEvent)]
    assert [events[0].part.content, *deltas] == WORDS  # type: ignore[union-attr]
    assert response.text == "".join(WORDS)
    assert response.state == "complete"


async def test_chunks_that_are_ready_are_read_without_a_turn_of_the_event_loop() -> None:
    # The reader of a stream wakes once for a burst of chunks, not once per chunk.
    other_task_ran = asyncio.Event()
    seen: list[tuple[str, bool]] = []
    async for item in stream_model(
        FunctionModel(stream_function=_words), HELLO, instructions=None, tools=[]
    ):
        if isinstance(item, TextDelta):
            if not seen:
                asyncio.get_running_loop().call_soon(other_task_ran.set)
            seen.append((item.text, other_task_ran.is_set()))
    assert seen == [(word, False) for word in WORDS]


async def test_a_reader_that_stops_early_closes_the_model_stream() -> None:
    closed = asyncio.Event()

    async def endless(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        try:
            while True:
                yield "tick "
        finally:
            closed.set()

    model = FunctionModel(stream_function=endless)
    stream = stream_model(model, HELLO, instructions=None, tools=[])
    async with contextlib.aclosing(stream) as items:
        async for item in items:
            if isinstance(item, TextDelta):
                break
    assert closed.is_set()
