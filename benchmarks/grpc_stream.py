"""``Stream`` throughput: events per second from one runyard process to one gRPC client.

    python benchmarks/grpc_stream.py [--events 20000] [--repeat 3] [--json PATH]

Writes one run's log (``run-start``, ``--events`` text deltas, ``run-finish``) through runyard's
``EventLog`` into a SQLite file, serves it with ``GrpcServer`` on loopback, and times a generated
client that follows the run (``Stream`` with an empty message) from the call to the last event:
the server's whole path — read the log, map each wire event to a ``StreamEvent``, the bounded
buffer, gRPC — in one process, client in the same event loop. Also reports the most events any
stream's buffer held (its bound is ``StreamLimits.capacity``). ``--json PATH`` writes both as a
summary row (no target).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
from _report import json_option, observed, write_rows

from runyard.agent import Agent
from runyard.config import Settings
from runyard.grpc import GrpcServer, GrpcState
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.grpc.v1 import inference_pb2_grpc as pb_grpc
from runyard.protocol import (
    RunFinishEvent,
    RunFinishPayload,
    RunStartEvent,
    RunStartPayload,
    TextDeltaEvent,
    TextDeltaPayload,
)
from runyard.service import CatalogAgents, EventLog, FixedAgents, Owner, RunManager
from runyard.service.bus import InProcessEventBus
from runyard.storage import Store, open_store

RUN = "run_bench"
AGENT = "agent-001"


@dataclass(frozen=True)
class Parts:
    store: Store
    events: EventLog
    runs: RunManager
    agents: FixedAgents
    catalog: CatalogAgents | None = None


async def fill(log: EventLog, key: str, events: int) -> None:
    async with log.writer(key) as writer:
        writer.emit(
            RunStartEvent(run_id=RUN, agent_id=AGENT, payload=RunStartPayload(message_id="m"))
        )
        for n in range(events):
            payload = TextDeltaPayload(text=f" word{n}")
            writer.emit(TextDeltaEvent(run_id=RUN, agent_id=AGENT, payload=payload))
            if n % 500 == 0:
                await asyncio.sleep(0)
        writer.emit(
            RunFinishEvent(run_id=RUN, agent_id=AGENT, payload=RunFinishPayload(status="completed"))
        )


async def stream_once(stub: pb_grpc.InferenceServiceStub, expected: int) -> float:
    started = time.perf_counter()
    received = 0
    async for _event in stub.Stream(pb.InvokeRequest(thread_id="backlog")):
        received += 1
    elapsed = time.perf_counter() - started
    assert received == expected, (received, expected)
    return elapsed


async def main(events: int, repeat: int, rows: Path | None) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        store = await open_store(f"sqlite:///{Path(scratch) / 'bench.db'}")
        bus = InProcessEventBus()
        log = EventLog(store, bus)
        await fill(log, Owner().thread_key("backlog"), events)
        agents = FixedAgents({"assistant": Agent("assistant", "runyard:demo")}, "assistant")
        parts = Parts(store, log, RunManager(store, log, agents), agents)
        state = GrpcState(Settings(auth="none"))
        server = GrpcServer(state, "127.0.0.1", 0)
        port = await server.start()
        await server.serve(parts)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.InferenceServiceStub(channel)
            times = [await stream_once(stub, events + 2) for _ in range(repeat)]
        await server.drain(1)
        await log.close()
        await bus.close()
        await store.close()
    median = statistics.median(times)
    print(f"events per stream      {events + 2}")
    print(f"median of {repeat}            {median * 1000:.0f} ms")
    print(f"events per second      {(events + 2) / median:,.0f}")
    print(f"buffer high-water mark {state.stats.high_water} (capacity {state.limits.capacity})")
    row = observed(
        f"gRPC `Stream` events per second, one process ({events + 2:,}-event run, client in the "
        "same loop)",
        f"{(events + 2) / median:,.0f}/s; buffer held ≤ {state.stats.high_water} events "
        f"(capacity {state.limits.capacity})",
    )
    write_rows(rows, [row])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    json_option(parser)
    args = parser.parse_args()
    asyncio.run(main(args.events, args.repeat, args.json))
