"""Replay of a 10,000-event backlog over SSE, from connect to the last event's bytes.

    python benchmarks/sse_replay.py [--events 10000] [--repeat 5] [--json PATH]

Writes a thread's log of text deltas through runyard's ``EventLog`` into a SQLite file, then
serves it with one uvicorn worker and times clients that connect with no cursor (the whole
history) until the frame with the last id has arrived. Also times the same read in process
(``EventLog.read``) to separate the store from HTTP. Loopback only, bounded by ``--repeat``.
``--json PATH`` writes the summary row against the target: the median replay ≤ 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from _report import at_most, json_option, write_rows
from sse_common import free_port, open_stream, serve

from runyard.protocol import TextDeltaEvent, TextDeltaPayload
from runyard.service import EventLog, Owner
from runyard.service.bus import InProcessEventBus
from runyard.storage import open_store


async def fill(db: Path, events: int) -> float:
    store = await open_store(f"sqlite:///{db}")
    bus = InProcessEventBus()
    log = EventLog(store, bus)
    key = Owner().thread_key("backlog")  # the thread clients with no identity headers see
    async with log.writer(key) as writer:
        for n in range(events):
            payload = TextDeltaPayload(text=f" word{n}")
            writer.emit(TextDeltaEvent(run_id="run_bench", agent_id="agent-001", payload=payload))
            if n % 500 == 0:
                await asyncio.sleep(0)
    started = time.perf_counter()
    replayed = await log.read(key)
    elapsed = time.perf_counter() - started
    assert len(replayed) == events
    await log.close()
    await bus.close()
    await store.close()
    return elapsed


async def replay_once(port: int, last_id: int) -> float:
    marker = f"id: {last_id}\n".encode()
    started = time.perf_counter()
    reader, writer = await open_stream(port, "/v1/events/backlog")
    tail = b""
    while True:
        data = await reader.read(1 << 20)
        if not data:
            raise RuntimeError("the stream closed before the backlog was replayed")
        if marker in tail + data:
            break
        tail = data[-32:]
    elapsed = time.perf_counter() - started
    writer.close()
    return elapsed


async def replays(port: int, events: int, repeat: int) -> list[float]:
    return [await replay_once(port, events) for _ in range(repeat)]


def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        in_process = asyncio.run(fill(db, args.events))
        port = free_port()
        with serve(db, port):
            times = asyncio.run(replays(port, args.events, args.repeat))
    median = statistics.median(times) * 1000
    print(
        f"| {args.events} events | SSE replay median {median:.0f} ms "
        f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, n={len(times)}) "
        f"| in-process EventLog.read {in_process * 1000:.0f} ms |"
    )
    row = at_most(
        f"replay of a {args.events:,}-event backlog over SSE, connect to last frame (median)",
        median,
        100,
        "ms",
        f"{median:.0f} ms (of which reading the log {in_process * 1000:.0f} ms)",
    )
    write_rows(args.json, [row])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    json_option(parser)
    main(parser.parse_args())
