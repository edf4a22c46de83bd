"""A service assembled from real parts for tests: store, in-process bus, event log, run manager."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from runyard.agent import Agent
from runyard.config import Settings
from runyard.protocol import WireEvent, parse_event
from runyard.service import EventLog, Owner, RunManager, default_agent
from runyard.service.bus import InProcessEventBus
from runyard.storage import Store, open_store

OWNER = Owner("acme", "alice")


@dataclass
class Service:
    store: Store
    events: EventLog
    runs: RunManager

    async def log(self, thread_id: str, after: int = 0) -> list[tuple[int, WireEvent]]:
        return [(e.id, parse_event(e.json)) for e in await self.events.read(thread_id, after)]

    async def types(self, thread_id: str) -> list[str]:
        return [event.type for _, event in await self.log(thread_id)]

    async def settle(self, thread_id: str) -> None:
        async with asyncio.timeout(20):
            await self.runs.wait_idle(thread_id)

    async def request_id(self, thread_id: str) -> str:
        (pending,) = await self.store.list_pending_confirmations(thread_id)
        return pending.request_id


def demo_assistant(store: Store) -> Agent:
    """The default ``assistant`` on the offline demo model."""
    return default_agent(store, Settings(model="runyard:demo"))


@asynccontextmanager
async def service(
    url: str,
    agents: Callable[[Store], Sequence[Agent]] | None = None,
    *,
    instance: str | None = None,
    lease_seconds: float = 30.0,
    titles: bool = False,
) -> AsyncIterator[Service]:
    """A running service on ``url``; the default ``assistant`` on the demo model unless given."""
    store = await open_store(url)
    bus = InProcessEventBus()
    events = EventLog(store, bus)
    chosen = list(agents(store)) if agents else [demo_assistant(store)]
    runs = RunManager(
        store,
        events,
        {a.name: a for a in chosen},
        default_agent=chosen[0].name,
        instance=instance,
        lease_seconds=lease_seconds,
        titles=titles,
    )
    try:
        yield Service(store, events, runs)
    finally:
        await runs.aclose()
        await events.close()
        await bus.close()
        await store.close()
