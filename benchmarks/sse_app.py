"""The app the SSE benchmarks serve: runyard's real HTTP app with a paced, timestamping model.

``create()`` is a uvicorn factory. Its ``assistant`` answers every message with
``SSE_BENCH_DELTAS`` text deltas, one every ``SSE_BENCH_INTERVAL_MS``, each ``T<ns>;`` where
``<ns>`` is ``time.monotonic_ns()`` when the model produced it. With ``SSE_BENCH_GO_FILE`` set,
every run waits for that file to exist, then for a random fraction of one interval (its
phase), before its first delta: runs started one by one then all stream at once (starting a
run costs far more than a delta: see docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.agent import Agent
from runyard.config import Settings
from runyard.http import create_app


class StartGate:
    """Opens once ``go_file`` exists (at once when it is None); one poll loop for every run."""

    def __init__(self, go_file: Path | None) -> None:
        self._go_file = go_file
        self._open = asyncio.Event()
        self._poller: asyncio.Task[None] | None = None
        if go_file is None:
            self._open.set()

    async def wait(self) -> None:
        if self._poller is None and not self._open.is_set():
            self._poller = asyncio.create_task(self._poll())
        await self._open.wait()

    async def _poll(self) -> None:
        assert self._go_file is not None
        # The go comes from another process as a file: there is nothing to await but time.
        while not self._go_file.exists():  # noqa: ASYNC110
            await asyncio.sleep(0.02)
        self._open.set()


def paced_model(deltas: int, interval_ms: float, gate: StartGate) -> FunctionModel:
    async def stream(_: list[pai.ModelMessage], __: AgentInfo) -> AsyncIterator[str]:
        await gate.wait()
        # Runs released together would tick in step, every delta of every run in one burst:
        # independent streams are spread over the interval, so each starts at its own phase.
        await asyncio.sleep(random.random() * interval_ms / 1000)
        for _n in range(deltas):
            await asyncio.sleep(interval_ms / 1000)
            yield f"T{time.monotonic_ns()};"

    async def respond(_: list[pai.ModelMessage], __: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(parts=[pai.TextPart("unused")])

    return FunctionModel(respond, stream_function=stream, model_name="paced")


def create() -> FastAPI:
    deltas = int(os.environ.get("SSE_BENCH_DELTAS", "100"))
    interval = float(os.environ.get("SSE_BENCH_INTERVAL_MS", "100"))
    go_file = os.environ.get("SSE_BENCH_GO_FILE")
    gate = StartGate(Path(go_file) if go_file else None)
    agent = Agent("assistant", paced_model(deltas, interval, gate))
    ping = float(os.environ.get("SSE_BENCH_PING_SECONDS", "15"))
    return create_app(Settings(), agents={"assistant": agent}, titles=False, sse_ping_seconds=ping)
