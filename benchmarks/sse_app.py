"""The app the SSE benchmarks serve: runyard's real HTTP app with a paced, timestamping model.

``create()`` is a uvicorn factory. Its ``assistant`` answers every message with
``SSE_BENCH_DELTAS`` text deltas, one every ``SSE_BENCH_INTERVAL_MS``, each ``T<ns>;`` where
``<ns>`` is ``time.monotonic_ns()`` when the model produced it.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator

from fastapi import FastAPI
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.agent import Agent
from runyard.config import Settings
from runyard.http import create_app


def paced_model(deltas: int, interval_ms: float) -> FunctionModel:
    async def stream(_: list[pai.ModelMessage], __: AgentInfo) -> AsyncIterator[str]:
        for _n in range(deltas):
            await asyncio.sleep(interval_ms / 1000)
            yield f"T{time.monotonic_ns()};"

    async def respond(_: list[pai.ModelMessage], __: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(parts=[pai.TextPart("unused")])

    return FunctionModel(respond, stream_function=stream, model_name="paced")


def create() -> FastAPI:
    deltas = int(os.environ.get("SSE_BENCH_DELTAS", "100"))
    interval = float(os.environ.get("SSE_BENCH_INTERVAL_MS", "100"))
    agent = Agent("assistant", paced_model(deltas, interval))
    ping = float(os.environ.get("SSE_BENCH_PING_SECONDS", "15"))
    return create_app(Settings(), agents={"assistant": agent}, titles=False, sse_ping_seconds=ping)
