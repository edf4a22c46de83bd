"""Expired suspensions end cleanly: a run nobody answered within the checkpoint TTL finishes with
``run-finish {"status": "error", "reason": "approval_expired"}`` (once, whoever meets it first:
the sweep of any replica, a late confirm, a new message), its thread takes messages again, and a
late confirm is told ``confirmation_expired``. Time is a clock the test moves, never a sleep.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from service_harness import OWNER, Service, key, service

from expiring_agents import NOTE, TTL, Clock, agents_on
from runyard.agent import Agent
from runyard.memory import Memory
from runyard.runtime import InMemoryCheckpointStore
from runyard.service import APPROVAL_EXPIRED, ConfirmationExpired, RunActive
from runyard.service.tools import save_note
from runyard.storage import Store


async def suspend(svc: Service, thread_id: str = "t1") -> tuple[str, str]:
    """Start a run that waits for approval; its run id and request id."""
    run_id = await svc.runs.start(OWNER, thread_id, NOTE)
    await svc.settle(thread_id)
    return run_id, await svc.request_id(thread_id)


async def finishes(svc: Service, run_id: str, thread_id: str = "t1") -> list[dict[str, object]]:
    """The payloads of ``run_id``'s ``run-finish`` events."""
    return [
        e.payload.model_dump(exclude_none=True)
        for _, e in await svc.log(thread_id)
        if e.type == "run-finish" and e.run_id == run_id
    ]


EXPIRED = {"status": "error", "reason": APPROVAL_EXPIRED}


async def test_the_sweep_ends_an_expired_suspension_and_frees_its_thread(sqlite_url: str) -> None:
    clock = Clock()
    async with service(sqlite_url, agents_on(clock)) as svc:
        run_id, request_id = await suspend(svc)
        clock.advance(TTL)
        assert await svc.runs.expire_suspensions() == [run_id]
        assert await svc.runs.expire_suspensions() == []
        assert await finishes(svc, run_id) == [EXPIRED]
        row = await svc.store.get_run(run_id)
        assert row is not None
        assert (row.status, row.reason) == ("failed", APPROVAL_EXPIRED)
        assert await svc.store.load_checkpoint(run_id, now=0) is None  # dropped, not just stale
        assert not (await svc.runs.status(OWNER, "t1")).is_suspended
        (snapshot,) = await svc.store.read_run_snapshots(key("t1"))  # ended like any run
        assert snapshot.data["assistant"]["agentTree"]["error"] == APPROVAL_EXPIRED
        with pytest.raises(ConfirmationExpired):
            await svc.runs.confirm(OWNER, request_id, {"approved": True})
        second = await svc.runs.start(OWNER, "t1", "hello again")
        await svc.settle("t1")
        (finish,) = await finishes(svc, second)
    assert finish["status"] == "completed"


async def test_a_suspension_within_its_ttl_is_kept_and_still_resumes(sqlite_url: str) -> None:
    clock = Clock()
    async with service(sqlite_url, agents_on(clock)) as svc:
        run_id, request_id = await suspend(svc)
        clock.advance(TTL - 0.001)
        assert await svc.runs.expire_suspensions() == []
        await svc.runs.confirm(OWNER, request_id, {"approved": True})
        await svc.settle("t1")
        (finish,) = await finishes(svc, run_id)
    assert finish["status"] == "completed"


async def test_a_late_confirm_ends_the_run_itself_and_is_told_it_expired(sqlite_url: str) -> None:
    clock = Clock()
    async with service(sqlite_url, agents_on(clock)) as svc:
        run_id, request_id = await suspend(svc)
        clock.advance(TTL)
        with pytest.raises(ConfirmationExpired):
            await svc.runs.confirm(OWNER, request_id, {"approved": True})
        with pytest.raises(ConfirmationExpired):
            await svc.runs.confirm(OWNER, request_id, {"approved": True})
        assert await finishes(svc, run_id) == [EXPIRED]
        types = await svc.types("t1")
    assert "tool-result" not in types  # the note was never saved
    assert types[-1] == "run-finish"


async def test_a_new_message_ends_an_expired_suspension_and_starts(sqlite_url: str) -> None:
    clock = Clock()
    async with service(sqlite_url, agents_on(clock)) as svc:
        run_id, _ = await suspend(svc)
        clock.advance(TTL)
        second = await svc.runs.start(OWNER, "t1", "hello again")
        await svc.settle("t1")
        log = [(e.type, e.run_id) for _, e in await svc.log("t1")]
        assert await finishes(svc, run_id) == [EXPIRED]
    assert log.index(("run-finish", run_id)) < log.index(("run-start", second))


async def test_racing_replicas_end_an_expired_suspension_exactly_once(db_url: str) -> None:
    clock = Clock()
    async with (
        service(db_url, agents_on(clock), instance="one") as one,
        service(db_url, agents_on(clock), instance="two") as two,
        service(db_url, agents_on(clock), instance="three") as three,
    ):
        run_id, _ = await suspend(one)
        clock.advance(TTL)
        ended = await asyncio.gather(
            *(svc.runs.expire_suspensions() for svc in (one, two, three, one, two, three))
        )
        assert [r for each in ended for r in each] == [run_id]
        assert await finishes(one, run_id) == [EXPIRED]
        assert await one.store.get_active_run(key("t1")) is None


def agents_in_memory() -> Callable[[Store], list[Agent]]:
    """The demo assistant keeping its checkpoints in this process's memory."""

    def in_memory(store: Store) -> list[Agent]:
        return [
            Agent(
                "assistant",
                "runyard:demo",
                tools=[save_note],
                memory=Memory(store),
                checkpoint_store=InMemoryCheckpointStore(),
            )
        ]

    return in_memory


async def test_checkpoints_in_another_processs_memory_are_not_judged_expired(
    sqlite_url: str,
) -> None:
    async with (
        service(sqlite_url, agents_in_memory(), instance="one") as one,
        service(sqlite_url, agents_in_memory(), instance="two") as two,
    ):
        run_id, request_id = await suspend(one)
        assert await two.runs.expire_suspensions() == []
        with pytest.raises(RunActive):
            await two.runs.start(OWNER, "t1", "hello")
        assert await one.runs.expire_suspensions() == []
        await one.runs.confirm(OWNER, request_id, {"approved": True})
        await one.settle("t1")
        (finish,) = await finishes(one, run_id)
    assert finish["status"] == "completed"
