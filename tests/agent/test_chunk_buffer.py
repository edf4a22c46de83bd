"""ChunkBuffer: the bounded queue behind agent.stream(), its back-pressure, end and drop."""

from __future__ import annotations

import asyncio

from runyard.agent.chunk_buffer import ChunkBuffer
from runyard.runtime import TextDeltaChunk


def _chunk(i: int) -> TextDeltaChunk:
    return TextDeltaChunk(str(i))


async def _settle() -> None:
    """Let every ready task run until it blocks (no clock involved)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def test_a_send_waits_while_the_buffer_is_full_and_goes_on_once_a_chunk_is_read() -> None:
    buffer = ChunkBuffer(2)
    await buffer.send(_chunk(0))
    await buffer.send(_chunk(1))
    third = asyncio.create_task(buffer.send(_chunk(2)))
    await _settle()
    assert not third.done()
    assert len(buffer) == 2

    assert await buffer.get() == _chunk(0)
    await _settle()
    assert third.done()
    assert [await buffer.get(), await buffer.get()] == [_chunk(1), _chunk(2)]


async def test_send_nowait_passes_the_bound_and_the_next_send_waits_until_back_under_it() -> None:
    buffer = ChunkBuffer(1)
    for i in range(3):
        buffer.send_nowait(_chunk(i))
    waiting = asyncio.create_task(buffer.send(_chunk(3)))
    await _settle()
    assert (len(buffer), waiting.done()) == (3, False)
    await buffer.get()
    await buffer.get()
    await _settle()
    assert not waiting.done()
    await buffer.get()
    await _settle()
    assert waiting.done()
    assert await buffer.get() == _chunk(3)


async def test_a_closed_buffer_gives_what_is_left_then_the_end_and_refuses_more() -> None:
    buffer = ChunkBuffer(4)
    await buffer.send(_chunk(0))
    buffer.close()
    buffer.send_nowait(_chunk(1))
    assert [await buffer.get(), await buffer.get()] == [_chunk(0), None]


async def test_drop_discards_what_waits_and_releases_a_waiting_send() -> None:
    buffer = ChunkBuffer(1)
    await buffer.send(_chunk(0))
    waiting = asyncio.create_task(buffer.send(_chunk(1)))
    await _settle()
    buffer.drop()
    await waiting
    await buffer.send(_chunk(2))
    assert len(buffer) == 0
    assert await buffer.get() is None
