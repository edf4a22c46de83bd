"""Following a run that has already ended — from its ``run-finish`` or past it, as a Temporal
activity's retry does — answers the run's true ending at once, never a failure after a wait."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import pytest
from grpc_harness import ALICE, Served, grpc_served, read_rest, streamed

from runyard.grpc.v1 import inference_pb2 as pb
from runyard.service.runs import follow
from sqlite_databases import MigratedSqlite

T = TypeVar("T")

FOLLOW_TIMEOUT = 600.0
"""Long enough that a follower which waits for it instead of answering fails the test."""

PROMPT = 30.0
"""How long an answer may take, well below ``FOLLOW_TIMEOUT``, on a loaded machine too."""


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture(autouse=True)
def slow_idle_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(follow, "IDLE_CHECK_SECONDS", FOLLOW_TIMEOUT)


async def promptly(call: Awaitable[T]) -> T:
    return await asyncio.wait_for(call, PROMPT)


async def finish_id(served: Served, thread_id: str) -> int:
    logged = await served.parts.events.read(f"acme/alice/{thread_id}")
    [finish] = [e.id for e in logged if '"run-finish"' in e.json]
    return finish


@pytest.mark.parametrize("past", [0, 7], ids=["at-the-finish", "past-the-finish"])
async def test_invoke_from_the_finish_answers_completed_with_the_runs_usage(
    url: str, past: int
) -> None:
    async with grpc_served(url) as served:
        first = await served.inference.Invoke(
            pb.InvokeRequest(thread_id="t1", message="hello"), metadata=ALICE
        )
        after = await finish_id(served, "t1") + past
        again = await promptly(
            served.inference.Invoke(
                pb.InvokeRequest(thread_id="t1", after_event_id=after), metadata=ALICE
            )
        )

    assert (again.status, again.run_id) == ("completed", first.run_id)
    assert not again.HasField("error")
    assert again.usage == first.usage
    assert again.last_event_id == first.last_event_id


async def test_stream_from_the_finish_sends_the_runs_completed_status(url: str) -> None:
    async with grpc_served(url) as served:
        first = await streamed(served, pb.InvokeRequest(thread_id="t1", message="hello"))
        request = pb.InvokeRequest(thread_id="t1", after_event_id=first[-1].meta.event_id)
        again = await promptly(streamed(served, request))

    assert [(e.status.state, e.meta.event_id) for e in again] == [
        (pb.COMPLETED, first[-1].meta.event_id)
    ]
    assert again[0].status.usage == first[-1].status.usage


async def test_a_cancelled_run_followed_from_its_finish_reports_cancelled_and_why(
    url: str,
) -> None:
    async with grpc_served(url) as served:
        call = served.inference.Stream(
            pb.InvokeRequest(thread_id="t1", message="/delay 30000\nslow"), metadata=ALICE
        )
        await call.read()
        await served.inference.Cancel(pb.CancelRequest(thread_id="t1"), metadata=ALICE)
        ended = (await read_rest(call))[-1]
        request = pb.InvokeRequest(thread_id="t1", after_event_id=ended.meta.event_id)
        invoked = await promptly(served.inference.Invoke(request, metadata=ALICE))
        stream = await promptly(streamed(served, request))

    assert ended.status.state == pb.CANCELLED
    assert ended.status.reason
    assert invoked.status == "cancelled"
    assert (invoked.error.code, invoked.error.message) == ("run_cancelled", ended.status.reason)
    assert [(e.status.state, e.status.reason) for e in stream] == [
        (pb.CANCELLED, ended.status.reason)
    ]


async def test_a_failed_run_followed_past_its_finish_reports_failed_and_why(url: str) -> None:
    async with grpc_served(url) as served:
        first = await served.inference.Invoke(
            pb.InvokeRequest(thread_id="t1", message="/fail 400"), metadata=ALICE
        )
        after = await finish_id(served, "t1") + 3
        again = await promptly(
            served.inference.Invoke(
                pb.InvokeRequest(thread_id="t1", after_event_id=after), metadata=ALICE
            )
        )

    assert first.status == "error"
    assert first.error.message
    assert again.status == "error"
    assert (again.error.code, again.error.message) == ("run_failed", first.error.message)
