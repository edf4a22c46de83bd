"""Every way a run ends goes one path (``run_finish``): exactly one ``run-finish``, last in the log;
the run's pending confirmations answered; its row closed; its checkpoint gone — through the agent,
wherever the agent keeps it. Confirm loads the checkpoint once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from service_harness import OWNER, Service, key, service

from runyard.agent import Agent
from runyard.ids import now_ms
from runyard.memory import Memory
from runyard.runtime import CheckpointStore, InMemoryCheckpointStore
from runyard.storage import Store, StoreCheckpointStore
from runyard.testing import ToolCall, Turn, call, scripted_model, text
from runyard.tools import tool

TWO = Turn(tool_calls=[ToolCall("launch", {}, "a"), ToolCall("launch", {}, "b")])
"""One turn asking for two approvals at once, ``a`` and ``b``."""

SLOW_AND_ONE = Turn(
    tool_calls=[ToolCall("launch", {"target": "slow"}, "a"), ToolCall("launch", {}, "b")]
)
"""Like ``TWO``, but ``a`` runs until it is cancelled once approved."""


@dataclass(frozen=True)
class Ending:
    """How a run's end looks from outside."""

    run_finishes: int
    last_is_its_finish: bool
    status: str
    reason: str | None
    pending_questions: int
    row: str
    checkpoint_left: bool


def ended(status: str, reason: str | None, row: str) -> Ending:
    """A run that ended once, cleanly, as ``status``/``reason``, closed as ``row``."""
    return Ending(1, True, status, reason, 0, row, False)


async def ending_of(svc: Service, run_id: str, checkpoints: CheckpointStore) -> Ending:
    log = [e for _, e in await svc.log("t1")]
    finishes = [e for e in log if e.type == "run-finish" and e.run_id == run_id]
    pending = [
        c for c in await svc.store.list_pending_confirmations(key("t1")) if c.run_id == run_id
    ]
    row = await svc.store.get_run(run_id)
    assert row is not None
    return Ending(
        len(finishes),
        bool(finishes) and log[-1] is finishes[-1],
        finishes[-1].payload.status if finishes else "",
        finishes[-1].payload.reason if finishes else None,
        len(pending),
        row.status,
        await checkpoints.load(run_id) is not None,
    )


@dataclass
class Checkpoints:
    """The agent's checkpoint store, counting loads and deletes; ``fail_saves`` breaks it."""

    inner: CheckpointStore
    loads: int = 0
    deletes: int = 0
    fail_saves: bool = False

    async def save(self, key: str, state: dict[str, Any]) -> None:
        if self.fail_saves:
            raise OSError("the checkpoint store is down")
        await self.inner.save(key, state)

    async def load(self, key: str) -> dict[str, Any] | None:
        self.loads += 1
        return await self.inner.load(key)

    async def delete(self, key: str) -> None:
        self.deletes += 1
        await self.inner.delete(key)


@dataclass
class Setup:
    """What a test builds its agent from, and watches."""

    turns: list[Turn]
    checkpoints: Callable[[Store], CheckpointStore] = StoreCheckpointStore
    store: Checkpoints | None = None
    slow_started: asyncio.Event = field(default_factory=asyncio.Event)

    def agents(self, store: Store) -> list[Agent]:
        started = self.slow_started

        @tool(requires_approval=True)
        async def launch(target: str = "moon") -> dict[str, str]:
            """Launch something irreversible."""
            if target == "slow":
                started.set()
                await asyncio.Event().wait()
            return {"launched": target}

        self.store = Checkpoints(self.checkpoints(store))
        model = scripted_model(self.turns)
        memory = Memory(store)
        agent = Agent(
            "assistant",
            model,
            tools=[launch],
            memory=memory,
            checkpoint_store=self.store,
            tool_call_concurrency=2,
        )
        return [agent]

    @property
    def saved(self) -> Checkpoints:
        assert self.store is not None
        return self.store


async def request_of(svc: Service, tool_call_id: str) -> str:
    (pending,) = [
        c
        for c in await svc.store.list_pending_confirmations(key("t1"))
        if c.tool_call_id == tool_call_id
    ]
    return pending.request_id


async def running_a_waiting_b(svc: Service, setup: Setup) -> str:
    """A run waiting for ``a`` and ``b``; ``a`` answered yes, so it runs (slowly) now."""
    run_id = await svc.runs.start(OWNER, "t1", "go")
    await svc.settle("t1")
    await svc.runs.confirm(OWNER, await request_of(svc, "a"), {"approved": True})
    async with asyncio.timeout(20):
        await setup.slow_started.wait()
    return run_id


async def test_a_completed_run_ends_once_and_leaves_no_checkpoint(db_url: str) -> None:
    setup = Setup([call("launch", id="a"), text("done")])
    async with service(db_url, setup.agents) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "go")
        await svc.settle("t1")
        await svc.runs.confirm(OWNER, await request_of(svc, "a"), {"approved": True})
        await svc.settle("t1")
        ending = await ending_of(svc, run_id, setup.saved)

    assert ending == ended("completed", None, "completed")


async def test_a_run_that_asked_nothing_ends_without_a_checkpoint_to_look_for(db_url: str) -> None:
    # It never suspended, so it never checkpointed: its end is its close alone.
    setup = Setup([text("done")])
    async with service(db_url, setup.agents) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "go")
        await svc.settle("t1")
        touched = (setup.saved.loads, setup.saved.deletes)
        ending = await ending_of(svc, run_id, setup.saved)

    assert touched == (0, 0)
    assert ending == ended("completed", None, "completed")


async def test_a_failed_run_ends_once_and_answers_the_questions_it_left(db_url: str) -> None:
    setup = Setup([TWO])
    async with service(db_url, setup.agents) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "go")
        await svc.settle("t1")
        setup.saved.fail_saves = True  # b still waits, but the run cannot checkpoint that
        await svc.runs.confirm(OWNER, await request_of(svc, "a"), {"approved": True})
        await svc.settle("t1")
        ending = await ending_of(svc, run_id, setup.saved)

    assert ending == ended("error", "the checkpoint store is down", "failed")


async def test_a_run_cancelled_while_running_ends_once_and_answers_its_questions(
    db_url: str,
) -> None:
    setup = Setup([SLOW_AND_ONE])
    async with service(db_url, setup.agents) as svc:
        run_id = await running_a_waiting_b(svc, setup)
        assert await svc.runs.cancel(OWNER, "t1")
        ending = await ending_of(svc, run_id, setup.saved)

    assert ending == ended("cancelled", "user_cancelled", "cancelled")


async def test_a_run_cancelled_while_suspended_ends_once(db_url: str) -> None:
    setup = Setup([TWO])
    async with service(db_url, setup.agents) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "go")
        await svc.settle("t1")
        assert await svc.runs.cancel(OWNER, "t1")
        ending = await ending_of(svc, run_id, setup.saved)

    assert ending == ended("cancelled", "user_cancelled", "cancelled")


async def test_a_run_handed_off_at_shutdown_is_carried_on_once_by_the_replica_that_takes_it(
    db_url: str,
) -> None:
    # The taker answers the model with the call cut off in flight; the model then answers.
    setup = Setup([SLOW_AND_ONE, text("done")])
    async with service(db_url, setup.agents) as svc:
        run_id = await running_a_waiting_b(svc, setup)
        await svc.runs.aclose(settle_seconds=0)
        handed_off = await ending_of(svc, run_id, setup.saved)
        survivor = await svc.replica("survivor")  # its start-up sweep takes the released lease
        await survivor.settle("t1")  # and carries the run on from its last durable step
        resumed = [e.type for _, e in await svc.log("t1")].count("run-resumed")
        ending = await ending_of(svc, run_id, setup.saved)

    assert (handed_off.run_finishes, handed_off.row) == (0, "running")
    assert resumed == 1
    assert ending == ended("completed", None, "completed")


async def test_a_run_swept_after_its_process_died_goes_on_ends_once_and_leaves_no_checkpoint(
    db_url: str,
) -> None:
    setup = Setup([call("launch", id="a"), text("done")])
    async with service(db_url, setup.agents) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "go")
        await svc.settle("t1")
        # As if a confirm had answered and taken the run over, and its process then died.
        await svc.store.answer_confirmation(await request_of(svc, "a"), {"approved": True})
        dead = await svc.store.take_over(run_id, "dead-process", lease_until=now_ms() - 1)
        await svc.store.update_run_status(run_id, "running", epoch=dead.lease_epoch)
        kept = await setup.saved.load(run_id) is not None
        swept = await svc.runs.sweep_interrupted()
        await svc.settle("t1")  # carried on from its last step: the call in flight is an error
        ending = await ending_of(svc, run_id, setup.saved)
        progress = await svc.store.load_progress(run_id)

    assert (kept, swept) == (True, [run_id])
    assert ending == ended("completed", None, "completed")
    assert (progress.state, progress.calls) == (None, {})


async def test_a_segment_that_breaks_outside_its_handling_still_tells_clients_it_ended(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = Setup([text("never")])
    async with service(db_url, setup.agents) as svc:
        original = svc.store.close_run

        async def broken_once(*args: Any, **kwargs: Any) -> None:
            # The driver's own ending fails (its run-finish and close were one write).
            monkeypatch.setattr(svc.store, "close_run", original)
            raise OSError("connection reset")

        monkeypatch.setattr(svc.store, "close_run", broken_once)
        run_id = await svc.runs.start(OWNER, "t1", "hello")
        await svc.settle("t1")
        ending = await ending_of(svc, run_id, setup.saved)

    assert ending == ended("error", "the run failed: connection reset", "failed")


async def test_checkpoints_kept_outside_the_database_are_found_and_dropped_through_the_agent(
    sqlite_url: str,
) -> None:
    # The agent keeps its checkpoints in memory, not in the service's database.
    setup = Setup([TWO], checkpoints=lambda _store: InMemoryCheckpointStore())
    async with service(sqlite_url, setup.agents) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "go")
        await svc.settle("t1")
        # As if the process died after storing its questions, before flipping the status.
        dead = await svc.store.take_over(run_id, "dead-process", lease_until=now_ms() - 1)
        await svc.store.update_run_status(run_id, "running", epoch=dead.lease_epoch)
        swept = await svc.runs.sweep_interrupted()
        resumable = await svc.runs.status(OWNER, "t1")
        assert await svc.runs.cancel(OWNER, "t1")
        ending = await ending_of(svc, run_id, setup.saved)

    assert (swept, resumable.is_suspended) == ([run_id], True)
    assert ending == ended("cancelled", "user_cancelled", "cancelled")


async def test_confirm_loads_the_checkpoint_once(db_url: str) -> None:
    setup = Setup([call("launch", id="a"), text("done")])
    async with service(db_url, setup.agents) as svc:
        await svc.runs.start(OWNER, "t1", "go")
        await svc.settle("t1")
        before = setup.saved.loads
        await svc.runs.confirm(OWNER, await request_of(svc, "a"), {"approved": True})
        await svc.settle("t1")
        loads = setup.saved.loads - before
        types = await svc.types("t1")

    assert loads == 1
    assert types[-2:] == ["text-delta", "run-finish"]
