"""Gap-free replay as a property: over random interleavings of emits, inserts completing (in
order), wake-ups delivered or lost, bus reconnects, readers reconnecting with their cursor and
the writer moving to the other replica, every reader gets each id exactly once, in order, with
no gap, and only once the store holds it (the invariant of ``event_log/reader.py``)."""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

from event_log_doubles import GatedStore, LossyNetwork
from hypothesis import given, settings
from hypothesis import strategies as st

from runyard.protocol import StatusEvent, StatusPayload
from runyard.service import EventLog, EventReader, EventWriter
from runyard.service.event_log import reader as reader_module
from runyard.storage.inmemory import InMemoryStore

THREAD = "t1"
READERS = 3
REPLICAS = 2

Action = tuple[Any, ...]
ACTIONS = {
    "emit": st.tuples(st.just("emit"), st.integers(1, 4)),
    "insert": st.just(("insert",)),
    "deliver": st.just(("deliver",)),
    "lose": st.just(("lose",)),
    "bus-reconnect": st.just(("bus-reconnect",)),
    "poll": st.tuples(st.just("poll"), st.integers(0, READERS - 1)),
    "reconnect": st.tuples(
        st.just("reconnect"), st.integers(0, READERS - 1), st.integers(0, REPLICAS - 1)
    ),
    "move-writer": st.tuples(st.just("move-writer"), st.integers(0, REPLICAS - 1)),
}


@st.composite
def scenarios(draw: st.DrawFn) -> list[Action]:
    """Up to 60 steps drawn from a random subset of the actions (swarm testing: a scenario
    with few polls lets inserts and writer moves pile up between two reads). The length is
    drawn first: plain ``st.lists`` are mostly a handful of steps long."""
    kinds = draw(st.sets(st.sampled_from(sorted(ACTIONS)), min_size=1))
    size = draw(st.integers(0, 60))
    step = st.one_of([ACTIONS[k] for k in sorted(kinds)])
    return draw(st.lists(step, min_size=size, max_size=size))


async def settle() -> None:
    """Let every task that can run, run (nothing here waits on the clock)."""
    for _ in range(12):
        await asyncio.sleep(0)


@dataclass
class Client:
    """An SSE client: its current connection and every id it has received."""

    stack: AsyncExitStack
    reader: EventReader
    seen: list[int] = field(default_factory=list)


class Replicas:
    """Two replicas over one store whose inserts the test completes, joined by a lossy bus."""

    def __init__(self, tail_size: int) -> None:
        self.store = GatedStore(InMemoryStore())
        self.network = LossyNetwork()
        self.logs = [
            EventLog(self.store, self.network.bus(), tail_size=tail_size)  # type: ignore[arg-type]
            for _ in range(REPLICAS)
        ]
        for log in self.logs:
            log.bus.on_publish = self.check_announced  # type: ignore[attr-defined]
        self.clients: list[Client] = []
        self.writer_stack = AsyncExitStack()
        self.writer: EventWriter | None = None
        self.emitted = 0

    def check_announced(self, thread_id: str, event_id: int) -> None:
        assert event_id <= self.store.committed_id, "announced before it was stored"

    async def open(self) -> None:
        for n in range(READERS):
            self.clients.append(await self.connect(n % REPLICAS, cursor=0))
        await self.move_writer(0)

    async def connect(self, replica: int, cursor: int) -> Client:
        stack = AsyncExitStack()
        reader = await stack.enter_async_context(self.logs[replica].reader(THREAD, after=cursor))
        return Client(stack, reader)

    async def move_writer(self, replica: int) -> None:
        """The run ends (its writer stores everything) and the next starts on ``replica``."""
        self.store.open()
        await self.writer_stack.aclose()
        self.store.gated = True
        self.writer_stack = AsyncExitStack()
        self.writer = await self.writer_stack.enter_async_context(self.logs[replica].writer(THREAD))
        assert self.writer.last_id == self.emitted

    def emit(self, count: int) -> None:
        assert self.writer is not None
        for _ in range(count):
            event = StatusEvent(
                run_id="run_1", agent_id="agent-001", payload=StatusPayload(message=str(count))
            )
            self.emitted = self.writer.emit(event)

    async def poll(self, client: Client) -> None:
        cursor = client.reader.cursor
        events = await client.reader.next(max_wait=0)
        ids = [e.id for e in events]
        assert ids == list(range(cursor + 1, cursor + 1 + len(ids))), "a gap or a repeat"
        assert all(i <= self.store.committed_id for i in ids), "seen before it was stored"
        stored = {e.id: e.data for e in await self.store.inner.read_events(THREAD, after_id=cursor)}
        assert [json.loads(e.json) for e in events] == [stored[i] for i in ids]
        client.seen += ids

    async def reconnect(self, n: int, replica: int) -> None:
        old = self.clients[n]
        await old.stack.aclose()
        new = await self.connect(replica, cursor=old.reader.cursor)
        new.seen = old.seen
        self.clients[n] = new

    async def act(self, action: Action) -> None:
        match action:
            case ("emit", count):
                self.emit(count)
            case ("insert",) if self.store.waiting:
                await self.store.release()
            case ("deliver",) if self.network.in_flight:
                self.network.deliver()
            case ("lose",) if self.network.in_flight:
                self.network.lose()
            case ("bus-reconnect",):
                self.network.reconnect(THREAD)
            case ("poll", n):
                await self.poll(self.clients[n])
            case ("reconnect", n, replica):
                await self.reconnect(n, replica)
            case ("move-writer", replica):
                await self.move_writer(replica)
        await settle()

    async def finish(self, lose_the_rest: bool) -> None:
        """Everything stored and every wake-up delivered, or lost and the loss noticed (all
        the bus promises): every reader catches up."""
        self.store.open()
        await self.writer_stack.aclose()
        while self.network.in_flight:
            if lose_the_rest:
                self.network.lose()
            else:
                self.network.deliver()
        if self.network.lost_since_stale:
            self.network.reconnect(THREAD)
        await settle()
        for client in self.clients:
            # A read takes at most a slice of three events: a reader far behind needs a poll
            # per slice, so the bound grows with the log (a fixed 50 failed at 151 events).
            for _ in range(self.emitted + 50):
                if client.reader.cursor == self.emitted:
                    break
                await self.poll(client)
                await settle()
            assert client.seen == list(range(1, self.emitted + 1))

    async def close(self) -> None:
        for client in self.clients:
            await client.stack.aclose()
        for log in self.logs:
            await log.close()
            await log.bus.close()


async def run(steps: list[Action], tail_size: int, lose_the_rest: bool = False) -> None:
    replicas = Replicas(tail_size)
    try:
        await replicas.open()
        for action in steps:
            await replicas.act(action)
        await replicas.finish(lose_the_rest)
    finally:
        replicas.store.open()
        await replicas.writer_stack.aclose()
        await replicas.close()


@settings(max_examples=300, deadline=None)
@given(steps=scenarios(), tail_size=st.integers(1, 4), lose_the_rest=st.booleans())
def test_every_reader_gets_every_stored_id_once_in_order(
    steps: list[Action], tail_size: int, lose_the_rest: bool
) -> None:
    # Store reads of three events at a time: a replay takes several slices.
    with mock.patch.object(reader_module, "READ_BATCH", 3):
        asyncio.run(run(steps, tail_size, lose_the_rest))
