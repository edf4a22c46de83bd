"""CPU time of the service's own part of a text delta's way to SSE clients, in one process.

    python benchmarks/sse_path_cpu.py [--deltas 20000] [--readers 1 10] [--rounds 3] [--json PATH]

Each delta goes ``EventWriter.emit`` (numbering, the redactor's hold-back) → the writer's
task (redaction of the event, JSON, the store, the channel's tail, the bus) → every reader's
``EventReader.next`` → ``event_frames`` → ``EventStreamResponse`` → an ASGI ``send``; the next
delta is emitted once every reader has sent it, so nothing batches. The store and ``send`` do
nothing, and there is no socket, uvicorn or h11: what is measured is the event log and SSE
code alone, without SQLite (``storage_events.py``) or HTTP. CPU time (``time.process_time``),
not wall time, so a machine busy with other work inflates the figure less than latency. Run it
against another checkout with ``PYTHONPATH=<its src>`` to compare codes.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Sequence
from typing import Any

from _report import json_option, observed, write_rows

from runyard.http.shutdown import Shutdown
from runyard.http.sse import EventStreamResponse, event_frames
from runyard.protocol import TextDeltaEvent, TextDeltaPayload
from runyard.service import EventLog
from runyard.service.bus import InProcessEventBus

THREAD = "thread-1"


class NullStore:
    """The part of an event log store the path touches, keeping nothing."""

    async def append_events(self, thread_id: str, events: Sequence[Any], /, **_: Any) -> None:
        return None

    async def last_event_id(self, thread_id: str) -> int:
        return 0

    async def read_event_json(
        self, thread_id: str, after_id: int, limit: int
    ) -> list[tuple[int, str]]:
        return []


class Sends:
    """The ASGI ``send`` of every stream: counts body messages, wakes whoever waits for a count."""

    def __init__(self) -> None:
        self.count = 0
        self._wanted = 0
        self._reached: asyncio.Future[None] | None = None

    async def send(self, message: Any) -> None:
        self.count += 1
        if self._reached is not None and self.count >= self._wanted:
            self._reached.set_result(None)
            self._reached = None

    async def until(self, count: int) -> None:
        if self.count < count:
            self._wanted = count
            self._reached = asyncio.get_running_loop().create_future()
            await self._reached


async def _never_disconnects() -> dict[str, Any]:
    await asyncio.Event().wait()
    return {"type": "http.disconnect"}


async def measure(deltas: int, readers: int) -> float:
    """CPU seconds per delta, all readers included."""
    log = EventLog(NullStore(), InProcessEventBus())  # type: ignore[arg-type]
    shutdown, sends = Shutdown(), Sends()
    streams = [
        asyncio.create_task(
            EventStreamResponse(event_frames(log, THREAD, 0, 15.0, shutdown))(
                {"type": "http"}, _never_disconnects, sends.send
            )
        )
        for _ in range(readers)
    ]
    await sends.until(readers * 2)  # each stream's response start and ``retry:`` line
    async with log.writer(THREAD) as writer:
        started = time.process_time()
        for n in range(deltas):
            payload = TextDeltaPayload(text=f"T{time.monotonic_ns()};{n}")
            writer.emit(TextDeltaEvent(run_id="run_1", agent_id="assistant", payload=payload))
            await sends.until(sends.count + readers)
        spent = time.process_time() - started
    for stream in streams:
        stream.cancel()
    await asyncio.gather(*streams, return_exceptions=True)
    await log.close()
    return spent / deltas


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=20000)
    parser.add_argument("--readers", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--rounds", type=int, default=3)
    json_option(parser)
    args = parser.parse_args()
    medians: dict[int, float] = {}
    for readers in args.readers:
        rounds = [asyncio.run(measure(args.deltas, readers)) * 1e6 for _ in range(args.rounds)]
        medians[readers] = statistics.median(rounds)
        for us in rounds:
            print(f"{readers} reader(s): {us:.1f} µs CPU per delta ({us / readers:.1f} per frame)")
    measured = ", ".join(f"{us:.0f} µs with {readers} reader(s)" for readers, us in medians.items())
    row = observed(
        "CPU per text delta of the event log and SSE code, in one process (no SQLite, no HTTP)",
        measured,
    )
    write_rows(args.json, [row])


if __name__ == "__main__":
    main()
