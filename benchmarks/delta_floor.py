"""The CPU a streamed text delta costs below runyard: asyncio alone, and pydantic-ai's stream alone.

    python benchmarks/delta_floor.py [--streams 1000] [--deltas 20] [--interval-ms 200]
                                     [--stream-deltas 20000] [--json PATH]

Two floors under ``sse_latency.py``'s target (≤ 50 µs of the server's CPU per delta at 1,000
streams x 5 deltas/s), each measured with nothing of runyard in it:

- **asyncio**: ``--streams`` tasks, each sleeping ``--interval-ms`` (from a random phase) and then
  writing one SSE-sized frame to its own socket, ``--deltas`` times; a forked process reads the
  other ends. Per delta that is what any asyncio server pays for a model's delta and its frame:
  a timer, a task step, a transport write (the send system call). No HTTP server, no store.
- **pydantic-ai**: one ``FunctionModel`` stream of ``--stream-deltas`` text deltas through
  ``pydantic_ai.direct.model_request_stream`` (how runyard calls every model), read to its end
  with no sleeping: the model layer's own work per delta (parts manager, usage, events).

CPU time of this process (``time.process_time``); the reader's is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import selectors
import socket
import time
from collections.abc import AsyncIterator

from _report import json_option, observed, write_rows
from pydantic_ai import messages as pai
from pydantic_ai.direct import model_request_stream
from pydantic_ai.models.function import AgentInfo, FunctionModel

FRAME = b'id: %d\nevent: text-delta\ndata: {"type":"text-delta","payload":{"text":"T%d;"}}\n\n'


def _read_until_closed(sockets: list[socket.socket]) -> None:
    with selectors.DefaultSelector() as selector:
        for sock in sockets:
            selector.register(sock, selectors.EVENT_READ)
        open_ = len(sockets)
        while open_:
            for key, _ in selector.select():
                if not key.fileobj.recv(65536):  # type: ignore[union-attr]
                    selector.unregister(key.fileobj)
                    open_ -= 1


async def _stream(transport: asyncio.Transport, deltas: int, interval: float) -> None:
    await asyncio.sleep(random.random() * interval)
    for n in range(deltas):
        await asyncio.sleep(interval)
        transport.write(FRAME % (n, time.monotonic_ns()))
    transport.close()


async def asyncio_floor(streams: int, deltas: int, interval: float) -> float:
    """µs of CPU per delta: timer, task step and transport write, ``streams`` at once."""
    loop = asyncio.get_running_loop()
    pairs = [socket.socketpair() for _ in range(streams)]
    reader = os.fork()
    if reader == 0:  # the other ends, read in a process of their own
        for ours, _ in pairs:
            ours.close()
        _read_until_closed([theirs for _, theirs in pairs])
        os._exit(0)
    for _, theirs in pairs:
        theirs.close()
    transports = []
    for ours, _ in pairs:
        transport, _protocol = await loop.connect_accepted_socket(asyncio.Protocol, ours)
        transports.append(transport)
    started = time.process_time()
    await asyncio.gather(*(_stream(t, deltas, interval) for t in transports))
    cpu = time.process_time() - started
    await asyncio.to_thread(os.waitpid, reader, 0)  # the reader ends once every socket closed
    return cpu * 1e6 / (streams * deltas)


async def pydantic_ai_floor(deltas: int) -> float:
    """µs of CPU per text delta of a ``FunctionModel`` stream read through pydantic-ai."""

    async def stream(_: list[pai.ModelMessage], __: AgentInfo) -> AsyncIterator[str]:
        for n in range(deltas):
            yield f"T{n};"

    async def respond(_: list[pai.ModelMessage], __: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(parts=[pai.TextPart("unused")])

    model = FunctionModel(respond, stream_function=stream)
    request = [pai.ModelRequest.user_text_prompt("go")]
    started = time.process_time()
    async with model_request_stream(model, request) as response:
        async for _ in response:
            pass
    return (time.process_time() - started) * 1e6 / deltas


async def main(args: argparse.Namespace) -> None:
    interval = args.interval_ms / 1000
    loop_us = [await asyncio_floor(args.streams, args.deltas, interval) for _ in range(args.rounds)]
    model_us = [await pydantic_ai_floor(args.stream_deltas) for _ in range(args.rounds)]
    low_loop, low_model = min(loop_us), min(model_us)
    print(
        f"asyncio, {args.streams:,} streams: "
        + ", ".join(f"{u:.1f}" for u in loop_us)
        + " µs/delta"
    )
    print("pydantic-ai stream: " + ", ".join(f"{u:.1f}" for u in model_us) + " µs/delta")
    write_rows(
        args.json,
        [
            observed(
                f"CPU per delta below runyard (best of {args.rounds}): asyncio alone at "
                f"{args.streams:,} streams (timer, task step, socket write) + pydantic-ai's "
                "stream alone",
                f"{low_loop:.1f} + {low_model:.1f} = {low_loop + low_model:.1f} µs",
            )
        ],
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--deltas", type=int, default=20)
    parser.add_argument("--interval-ms", type=float, default=200)
    parser.add_argument("--stream-deltas", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    json_option(parser)
    asyncio.run(main(parser.parse_args()))
