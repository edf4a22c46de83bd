"""Back-pressure: a slow client holds a bounded buffer, the run is not held back, nothing is
dropped, and a client that stalls gets an error saying where to resume."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from grpc_harness import ALICE, Served, grpc_served, read_rest
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.agent import Agent
from runyard.grpc import BufferStats, StreamLimits
from runyard.grpc.stream_buffer import write_buffered
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.memory import Memory
from runyard.storage import Store
from sqlite_databases import MigratedSqlite

CHUNKS = 150
CHUNK = "x" * 1200


async def chatty(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    for _ in range(CHUNKS):
        yield CHUNK


def agents(store: Store) -> list[Agent]:
    return [Agent("assistant", FunctionModel(stream_function=chatty), memory=Memory(store))]


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def run_finished(served: object, key: str) -> None:
    """Wait until the thread's log holds a run-finish."""
    async with served.parts.events.reader(key) as reader:  # type: ignore[attr-defined]
        while not any('"run-finish"' in e.json for e in await reader.next()):
            pass


async def read_until_refused(call: grpc.aio.UnaryStreamCall) -> list[pb.StreamEvent]:
    """What the call sent before it ended with an error."""
    received: list[pb.StreamEvent] = []
    try:
        while (event := await call.read()) is not grpc.aio.EOF:
            received.append(event)
    except grpc.aio.AioRpcError:
        return received
    raise AssertionError(f"the call ended without an error after {len(received)} events")


def assert_complete(events: list[pb.StreamEvent]) -> None:
    ids = [e.meta.event_id for e in events]
    assert ids == list(range(1, len(ids) + 1)), "an event was dropped or repeated"
    assert events[-1].status.state == pb.COMPLETED
    assert "".join(e.token.text for e in events) == CHUNK * CHUNKS


@pytest.mark.slow
async def test_a_client_that_reads_nothing_until_the_run_ends_holds_only_the_buffer(
    url: str,
) -> None:
    limits = StreamLimits(capacity=16, stall_seconds=60)
    async with grpc_served(url, agents, limits=limits) as served:
        call = served.inference.Stream(
            pb.InvokeRequest(thread_id="t1", message="go"), metadata=ALICE
        )
        await run_finished(served, "acme/alice/t1")
        open_while_held = streams_open(served)
        events = await read_rest(call)
        open_after = streams_open(served)

    # The run ended while its client read nothing: it was never held back, the stream held at
    # most its buffer (what gRPC's flow control takes aside; the gated test below pins the bound),
    # and nothing was lost.
    assert served.server.state.stats.high_water <= limits.capacity
    assert len(events) > CHUNKS
    assert_complete(events)
    assert (open_while_held, open_after) == (1, 0)  # the app's /metrics counts gRPC streams


def streams_open(served: Served) -> float | None:
    registry = served.app.state.runyard.metrics.registry
    return registry.get_sample_value("runyard_streams_open", {"protocol": "grpc"})


async def test_a_client_too_slow_is_told_where_to_resume_and_loses_nothing(url: str) -> None:
    # A limit of 0 s makes every write "too slow": the first event goes out, then the error.
    request = pb.InvokeRequest(thread_id="t1", message="go")
    async with grpc_served(url, agents, limits=StreamLimits(stall_seconds=0)) as served:
        call = served.inference.Stream(request, metadata=ALICE)
        received = await read_until_refused(call)
        code, details = await call.code(), await call.details()
        resume_at = int(details.rsplit("after_event_id=", 1)[1].split()[0])
        served.server.state.limits = StreamLimits()
        rest = await read_rest(
            served.inference.Stream(
                pb.InvokeRequest(thread_id="t1", after_event_id=resume_at), metadata=ALICE
            )
        )

    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "nothing was dropped" in details
    assert [e.meta.event_id for e in received] == [resume_at]
    assert rest[0].meta.event_id == resume_at + 1
    assert_complete([*received, *rest])


class GatedContext:
    """A call whose client takes events only when the test opens the gate."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.written: list[pb.StreamEvent] = []

    async def write(self, event: pb.StreamEvent) -> None:
        await self.gate.wait()
        self.written.append(event)


async def numbered(count: int, produced: list[int]) -> AsyncIterator[pb.StreamEvent]:
    for n in range(1, count + 1):
        produced.append(n)
        yield pb.StreamEvent(meta=pb.StreamEventMeta(event_id=n, event_index=n))


async def test_a_client_that_takes_nothing_holds_the_buffer_and_no_more() -> None:
    context, produced, stats = GatedContext(), [], BufferStats()
    limits = StreamLimits(capacity=16, stall_seconds=3600)
    writing = asyncio.create_task(
        write_buffered(context, numbered(10_000, produced), limits, stats)  # type: ignore[arg-type]
    )
    while stats.high_water < limits.capacity:  # noqa: ASYNC110 - a counter of the buffer
        await asyncio.sleep(0)
    for _ in range(100):  # however long the client waits, nothing more is read
        await asyncio.sleep(0)
    held = len(produced)
    context.gate.set()
    await writing

    # One event in the write under way, the buffer full, and one the pump holds while it waits.
    assert held <= limits.capacity + 2
    assert stats.high_water == limits.capacity
    assert [e.meta.event_id for e in context.written] == list(range(1, 10_001))
