"""Back-pressure of a ``Stream``: a bounded buffer between the thread's log and the client.

A pump reads the run's events into a queue of ``capacity`` events; the call writes them one by
one, each write awaiting the client (gRPC flow control). A slow client fills the queue, and the
pump stops reading until there is room: memory per stream stays bounded, and the run is not
held back (it writes to the durable log, not to the stream). Nothing is dropped: a client that
took longer than ``stall_seconds`` to take one event is too slow for a live stream, and once
that write went through it gets ``RESOURCE_EXHAUSTED`` naming the last event it was sent, to
call ``Stream`` again with an empty message and ``after_event_id`` (the log has the rest).
The error cannot overtake the events already sent — gRPC delivers the status after them — so
it is raised after the slow write, not during it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc

from runyard.grpc.status import CallError
from runyard.grpc.v1 import inference_pb2 as pb

__all__ = ["BufferStats", "StreamLimits", "write_buffered"]


@dataclass(frozen=True, slots=True)
class StreamLimits:
    capacity: int = 256
    """Events a stream holds for its client at most."""
    stall_seconds: float = 30.0
    """How long one write may wait for the client before the stream gives up (after it)."""


@dataclass
class BufferStats:
    """What the buffers of a server held (tests and benchmarks read it)."""

    high_water: int = 0
    """The most events any one stream's buffer held at once."""
    events_written: int = 0


_END = object()


async def write_buffered(
    context: grpc.aio.ServicerContext,
    events: AsyncIterator[pb.StreamEvent],
    limits: StreamLimits,
    stats: BufferStats,
) -> None:
    """Write ``events`` to the call through a buffer of ``limits.capacity`` events."""
    queue: asyncio.Queue[object] = asyncio.Queue(limits.capacity)

    async def pump() -> None:
        try:
            async for event in events:
                await queue.put(event)
                stats.high_water = max(stats.high_water, queue.qsize())
            await queue.put(_END)
        except Exception as exc:
            await queue.put(exc)

    pumping = asyncio.create_task(pump(), name="runyard-grpc-stream-pump")
    try:
        await _drain(context, queue, limits, stats, pumping)
    finally:
        pumping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pumping
        with contextlib.suppress(Exception):
            await events.aclose()  # type: ignore[attr-defined]


async def _drain(
    context: grpc.aio.ServicerContext,
    queue: asyncio.Queue[object],
    limits: StreamLimits,
    stats: BufferStats,
    pumping: asyncio.Task[None],
) -> None:
    clock = asyncio.get_running_loop().time
    while (item := await queue.get()) is not _END:
        if isinstance(item, Exception):
            raise item
        assert isinstance(item, pb.StreamEvent)
        began = clock()
        await context.write(item)
        stats.events_written += 1
        more = queue.qsize() > 0 or not pumping.done()
        if more and clock() - began > limits.stall_seconds:
            raise CallError(
                "RESOURCE_EXHAUSTED",
                "slow_consumer",
                f"the client took more than {limits.stall_seconds:g} s to take one event while "
                f"{queue.qsize()} waited; nothing was dropped: call Stream again with an empty "
                f"message and after_event_id={item.meta.event_id} to go on from the thread's "
                "event log",
            )
