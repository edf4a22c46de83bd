"""Takeover: two replicas on one database; the first one's run dies mid-tool, the second carries
it on from its last durable step and completes it.

Replica A drives the run; its ``lookup`` call hangs. A "dies": its run's task is stopped without
finishing (nothing renews its lease, so it expires after ``lease_seconds``). Replica B's sweep
takes the run with a higher epoch and resumes it on the same run id: the settled ``charge`` is
replayed from the ledger, never run again; the retry-safe ``lookup`` runs again. A client that
drops what ``run-resumed`` says to drop sees every event once.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from service_harness import OWNER, Service, key, service

from runyard.agent import Agent
from runyard.ids import now_ms
from runyard.protocol import WireEvent
from runyard.service.threads.history import fold_runs
from runyard.storage import Store
from runyard.testing import ToolCall, Turn, scripted_model, text
from runyard.tools import Tool

LEASE = 0.3


class Tools:
    """``charge`` (not retry-safe) and ``lookup`` (retry-safe), counting their executions;
    ``lookup`` blocks while ``hold`` is set (the replica froze, or dies there)."""

    def __init__(self) -> None:
        self.started: Counter[str] = Counter()
        self.done: Counter[str] = Counter()
        self.hold = True
        self.blocked = asyncio.Event()
        self.release = asyncio.Event()

    async def charge(self, amount: int) -> str:
        self.started["charge"] += 1
        self.done["charge"] += 1
        return f"charged {amount}"

    async def lookup(self, query: str) -> str:
        self.started["lookup"] += 1
        if self.hold:
            self.blocked.set()
            await self.release.wait()
        self.done["lookup"] += 1
        return f"found {query}"

    def made(self) -> list[Tool]:
        return [
            Tool.from_function(self.charge, description="Charges the card."),
            Tool.from_function(self.lookup, description="Looks it up.", retry_safe=True),
        ]


FIRST = Turn(
    text="Let me charge and look.",
    tool_calls=[ToolCall("charge", {"amount": 5}, "c1"), ToolCall("lookup", {"query": "q"}, "c2")],
)


def replica(tools: Tools, turns: Sequence[Turn]) -> Callable[[Store], list[Agent]]:
    def agents(store: Store) -> list[Agent]:
        return [Agent("assistant", scripted_model(turns), tools=tools.made())]

    return agents


async def expired(svc: Service, run_id: str) -> None:
    """Wait until the run's lease has run out (nobody renews it)."""
    async with asyncio.timeout(10):
        # Only the database's clock can tell; nothing is announced when a lease runs out.
        while run_id not in {r.run_id for r in await svc.store.list_expired_runs(now_ms())}:  # noqa: ASYNC110
            await asyncio.sleep(LEASE / 5)


def as_seen(log: list[tuple[int, WireEvent]]) -> list[tuple[int, WireEvent]]:
    """What a client keeps: each ``run-resumed`` drops its run's events logged after
    ``afterEventId`` and before it."""
    kept: list[tuple[int, WireEvent]] = []
    for event_id, event in log:
        if event.type == "run-resumed":
            after = event.payload.after_event_id
            kept = [(i, e) for i, e in kept if i <= after or e.run_id != event.run_id]
        kept.append((event_id, event))
    return kept


def kinds(events: Sequence[WireEvent]) -> list[str]:
    """The events' types, a run of text deltas counted as one."""
    types = [e.type for e in events]
    return [t for n, t in enumerate(types) if t != "text-delta" or types[n - 1] != t]


async def kill(svc: Service) -> None:
    """Stop every run task of the replica without letting it finish anything."""
    for run in list(svc.runs._runs.values()):
        assert run.task is not None
        run.task.cancel()
        await asyncio.gather(run.task, return_exceptions=True)


async def test_a_run_whose_replica_died_mid_tool_is_completed_by_another(db_url: str) -> None:
    tools = Tools()
    async with (
        service(db_url, replica(tools, [FIRST]), instance="a", lease_seconds=LEASE) as a,
        service(db_url, replica(tools, [text("All done.")]), instance="b") as b,
    ):
        run_id = await a.runs.start(OWNER, "t1", "charge and look")
        await asyncio.wait_for(tools.blocked.wait(), 10)
        await kill(a)
        await expired(b, run_id)
        tools.hold = False

        assert await b.runs.sweep_interrupted() == [run_id]
        await b.settle("t1")

        row = await b.store.get_run(run_id)
        log = await b.log("t1")
        rows = fold_runs(await b.store.read_events(key("t1")))

    assert row is not None
    assert (row.status, row.lease_owner, row.lease_epoch) == ("completed", "b", 3)
    assert tools.done == Counter(charge=1, lookup=1)
    assert tools.started == Counter(charge=1, lookup=2)
    seen = [e for _, e in as_seen(log)]
    assert kinds(seen) == [
        "run-start",
        "text-delta",
        "tool-call",
        "tool-call",
        "run-resumed",
        "tool-result",
        "tool-result",
        "text-delta",
        "run-finish",
    ]
    assert [e.payload.result for e in seen if e.type == "tool-result"] == [
        "charged 5",
        "found q",
    ]
    assert {e.run_id for e in seen} == {run_id}
    (history,) = rows
    assert history.assistant["content"] == "Let me charge and look.All done."
    assert [c["result"] for c in history.assistant["agentTree"]["toolCalls"]] == [
        "charged 5",
        "found q",
    ]


async def test_a_frozen_replica_that_wakes_after_the_takeover_writes_nothing(db_url: str) -> None:
    tools = Tools()
    async with (
        service(
            db_url, replica(tools, [FIRST, text("late")]), instance="a", lease_seconds=LEASE
        ) as a,
        service(db_url, replica(tools, [text("All done.")]), instance="b") as b,
    ):
        run_id = await a.runs.start(OWNER, "t1", "charge and look")
        await asyncio.wait_for(tools.blocked.wait(), 10)
        await expired(b, run_id)
        tools.hold = False
        assert await b.runs.sweep_interrupted() == [run_id]
        await b.settle("t1")
        before = await b.log("t1")
        progress = await b.store.load_progress(run_id)

        tools.release.set()  # A wakes: its lookup returns, and its next write is fenced
        await a.settle("t1")
        after = await b.log("t1")
        row = await b.store.get_run(run_id)

    assert row is not None
    assert (row.status, row.lease_owner) == ("completed", "b")
    assert [e.type for _, e in after] == [e.type for _, e in before]
    assert (progress.state, progress.calls) == (None, {})
    assert tools.done == Counter(charge=1, lookup=2)


async def test_a_run_that_died_before_its_first_step_restarts_from_its_message(
    db_url: str,
) -> None:
    tools = Tools()

    def stuck(store: Store) -> list[Agent]:
        async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            raise AssertionError("the service streams")

        async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
            yield "Hel"
            tools.blocked.set()
            await asyncio.Event().wait()

        return [Agent("assistant", FunctionModel(respond, stream_function=stream))]

    async with (
        service(db_url, stuck, instance="a", lease_seconds=LEASE) as a,
        service(db_url, replica(tools, [text("Hello again.")]), instance="b") as b,
    ):
        run_id = await a.runs.start(OWNER, "t1", "hi")
        await asyncio.wait_for(tools.blocked.wait(), 10)
        await kill(a)
        await expired(b, run_id)
        assert await b.runs.sweep_interrupted() == [run_id]
        await b.settle("t1")
        log = await b.log("t1")
        rows = fold_runs(await b.store.read_events(key("t1")))

    seen = [e for _, e in as_seen(log)]
    assert kinds(seen) == ["run-start", "run-resumed", "text-delta", "run-finish"]
    assert seen[-1].payload.status == "completed"
    (history,) = rows
    assert history.assistant["content"] == "Hello again."
