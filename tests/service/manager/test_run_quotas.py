"""``RunManager.start`` under ``TenantLimits``: a run refused for concurrency gives back the
request it was counted as, and a thread with an active run (409) is no request either."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, FunctionModel
from service_harness import OWNER, key

from runyard.agent import Agent
from runyard.service import (
    ConcurrencyLimited,
    EventLog,
    RateLimited,
    RunActive,
    RunManager,
    TenantLimits,
)
from runyard.service.bus import InProcessEventBus
from runyard.storage import open_store


async def test_a_request_refused_after_the_rate_check_is_not_counted(sqlite_url: str) -> None:
    gate = asyncio.Event()

    async def answer(messages: list[pai.ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        await gate.wait()
        yield "done"

    store = await open_store(sqlite_url)
    bus = InProcessEventBus()
    events = EventLog(store, bus)
    agent = Agent(name="gated", model=FunctionModel(stream_function=answer))
    limits = TenantLimits(requests_per_minute=2, concurrent_runs=1)
    runs = RunManager(store, events, {"gated": agent}, titles=False, tenant_limits=limits)
    try:
        await runs.start(OWNER, "t1", "hi")  # runs until the gate opens: 1 of 2 this minute
        with pytest.raises(ConcurrencyLimited):
            await runs.start(OWNER, "t2", "hi")
        with pytest.raises(RunActive):
            await runs.start(OWNER, "t1", "again")
        gate.set()
        async with asyncio.timeout(20):
            await runs.wait_idle(key("t1"))
        await runs.start(OWNER, "t2", "hi")  # 2 of 2: the two refusals were given back
        async with asyncio.timeout(20):
            await runs.wait_idle(key("t2"))
        with pytest.raises(RateLimited):
            await runs.start(OWNER, "t3", "hi")
    finally:
        gate.set()
        await runs.aclose()
        await events.close()
        await bus.close()
        await store.close()
