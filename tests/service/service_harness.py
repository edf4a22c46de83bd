"""A service assembled from real parts for tests: store, in-process bus, event log, run manager."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from runyard.agent import Agent
from runyard.config import Role, Settings
from runyard.protocol import WireEvent, parse_event
from runyard.service import EventLog, Owner, RunManager, default_agent
from runyard.service.bus import EventBus, InProcessEventBus
from runyard.storage import Store, open_store

OWNER = Owner("acme", "alice")


def key(thread_id: str, owner: Owner = OWNER) -> str:
    """The storage key of the owner's thread (what the store, the log and the bus use)."""
    return owner.thread_key(thread_id)


@dataclass
class Service:
    store: Store
    events: EventLog
    runs: RunManager
    agents: dict[str, Agent]
    stack: AsyncExitStack

    async def log(
        self, thread_id: str, after: int = 0, owner: Owner = OWNER
    ) -> list[tuple[int, WireEvent]]:
        events = await self.events.read(key(thread_id, owner), after)
        return [(e.id, parse_event(e.json)) for e in events]

    async def types(self, thread_id: str, owner: Owner = OWNER) -> list[str]:
        return [event.type for _, event in await self.log(thread_id, owner=owner)]

    async def settle(self, thread_id: str, owner: Owner = OWNER) -> None:
        async with asyncio.timeout(20):
            await self.runs.wait_idle(key(thread_id, owner))

    async def replica(
        self,
        instance: str,
        *,
        bus: EventBus | None = None,
        lease_seconds: float = 30.0,
        role: Role = "all",
        worker_concurrency: int = 16,
        queue_poll_seconds: float = 1.0,
    ) -> Service:
        """Another process's service on the same store and agents (on ``bus``, default the
        same in-process bus), its leases kept like a server's; closed with this one."""
        events = EventLog(self.store, bus or self.events.bus)
        self.stack.push_async_callback(events.close)
        runs = RunManager(
            self.store,
            events,
            self.agents,
            instance=instance,
            lease_seconds=lease_seconds,
            role=role,
            worker_concurrency=worker_concurrency,
            queue_poll_seconds=queue_poll_seconds,
        )
        self.stack.push_async_callback(runs.aclose, 0)
        await runs.keep_leases()
        return Service(self.store, events, runs, self.agents, self.stack)

    async def request_id(self, thread_id: str, owner: Owner = OWNER) -> str:
        (pending,) = await self.store.list_pending_confirmations(key(thread_id, owner))
        return pending.request_id


async def start_waiting(runs: RunManager, started: asyncio.Event, thread_id: str = "t1") -> str:
    """Start a run whose tool sets ``started`` (``blocking_agents``), and wait until it has;
    the run's id."""
    run_id = await runs.start(OWNER, thread_id, "go")
    async with asyncio.timeout(20):
        await started.wait()
    return run_id


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
    wrap: Callable[[Store], Store] | None = None,
) -> AsyncIterator[Service]:
    """A running service on ``url``; the default ``assistant`` on the demo model unless given;
    its store seen through ``wrap``, when given."""
    opened = await open_store(url)
    store = opened if wrap is None else wrap(opened)
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
    agents_by_name = {a.name: a for a in chosen}
    try:
        async with AsyncExitStack() as stack:
            yield Service(store, events, runs, agents_by_name, stack)
    finally:
        # Runs still going are handed off at once, as a server does once its grace is up.
        await runs.aclose(settle_seconds=0)
        await events.close()
        await bus.close()
        await store.close()
