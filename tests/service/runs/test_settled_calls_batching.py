"""A settled tool call's ledger row is written with the run's events, not in a transaction of
its own: in the batch that holds the call's ``tool-result`` event, or one before it, so the call
is durable before any client sees its result (docs/service.md, Durable runs and takeover)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runyard.agent import Agent
from runyard.service import EventLog, Owner, RunManager
from runyard.service.bus import InProcessEventBus
from runyard.storage import ForwardingStore, LedgerWrite, StoredEvent, ToolCallEntry, open_store
from runyard.testing import ToolCall, Turn, scripted_model, text
from runyard.tools import Tool

OWNER = Owner("acme", "alice")


@dataclass
class Write:
    """One write transaction the service asked for."""

    kind: str
    events: list[str] = field(default_factory=list)
    settled: list[str] = field(default_factory=list)
    """The tool call ids written settled in it."""


class RecordingStore(ForwardingStore):
    """Remembers every event-log batch and ledger write, in order."""

    writes: list[Write]

    async def append_events(
        self,
        thread_id: str,
        events: Sequence[StoredEvent],
        /,
        *,
        ledger: Sequence[LedgerWrite] = (),
    ) -> None:
        ids = [c.tool_call_id for j in ledger for c in j.calls if c.state == "settled"]
        self.writes.append(Write("events", [e.type for e in events], ids))
        await super().append_events(thread_id, events, ledger=ledger)

    async def record_progress(
        self,
        run_id: str,
        calls: Sequence[ToolCallEntry],
        /,
        *,
        epoch: int,
        state: dict[str, Any] | None = None,
    ) -> None:
        ids = [c.tool_call_id for c in calls if c.state == "settled"]
        self.writes.append(Write("progress", settled=ids))
        await super().record_progress(run_id, calls, epoch=epoch, state=state)


async def lookup(query: str) -> str:
    return f"found {query}"


async def test_a_settled_call_is_stored_with_its_tool_result_event(tmp_path: Path) -> None:
    inner = await open_store(f"sqlite:///{tmp_path / 'runyard.db'}")
    store = RecordingStore(inner)
    store.writes = []
    bus = InProcessEventBus()
    events = EventLog(store, bus)
    model = scripted_model(
        [Turn(tool_calls=[ToolCall("lookup", {"query": "q"}, "c1")]), text("Found it.")]
    )
    agent = Agent("assistant", model, tools=[Tool.from_function(lookup, description="Looks.")])
    runs = RunManager(store, events, {"assistant": agent}, default_agent="assistant")
    try:
        await runs.start(OWNER, "t1", "look it up")
        async with asyncio.timeout(20):
            await runs.wait_idle(OWNER.thread_key("t1"))
    finally:
        await runs.aclose(settle_seconds=0)
        await events.close()
        await bus.close()
        await inner.close()

    with_settled = [w for w in store.writes if "c1" in w.settled]
    assert [w.kind for w in with_settled] == ["events"]  # no transaction of its own
    # In the very transaction of the event that shows the result: never visible before it.
    assert "tool-result" in with_settled[0].events
