"""A thread's history is read from agent-tree snapshots: each finished run is folded once, after
its ``run-finish``, and stored; a read takes whole runs a page at a time and folds only what has
no snapshot yet (a run in progress, a thread from before snapshots). Pages join up to the whole
history, and ``nextEventId`` still hands off to the event stream exactly."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from service_harness import OWNER, Service, key, service
from sqlalchemy import delete

from runyard.protocol import WireEvent
from runyard.service import Threads
from runyard.service.threads.history import LogFold, fold_runs
from runyard.storage import RunSnapshot, StoredEvent
from runyard.storage.sql import SqlStore
from runyard.storage.sql.engine import write
from runyard.storage.sql.schema import run_snapshots

NOTE = '/tool save_note {"text": "buy milk"}'


async def chat(svc: Service, *messages: str, thread_id: str = "t1") -> list[str]:
    run_ids = []
    for message in messages:
        run_ids.append(await svc.runs.start(OWNER, thread_id, message))
        await svc.settle(thread_id)
    return run_ids


async def history(svc: Service, **page: Any) -> dict[str, Any]:
    return await Threads(svc.events, svc.store).messages(OWNER, "t1", **page)


async def folded_from_the_log(svc: Service) -> list[dict[str, Any]]:
    """The assistant rows of every run, folded from the whole log (what a read used to do)."""
    return [run.assistant for run in fold_runs(await svc.store.read_events(key("t1")))]


def assistants(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "assistant"]


async def test_each_finished_run_is_snapshotted_once_with_its_tree(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        run_ids = await chat(svc, "hello", '/tool calculator {"expression": "2+3"}')
        snapshots = await svc.store.read_run_snapshots(key("t1"))
        body = await history(svc)
        folded = await folded_from_the_log(svc)
        last = await svc.store.last_event_id(key("t1"))

    assert [s.run_id for s in snapshots] == run_ids
    assert snapshots[-1].last_event_id == last
    assert [s.data["assistant"] for s in snapshots] == folded
    assert assistants(body) == folded
    assert [m["role"] for m in body["messages"]] == ["user", "assistant"] * 2
    assert body["messages"][0]["content"] == "hello"
    assert body["nextEventId"] == last + 1
    assert "nextCursor" not in body
    tool_calls = folded[1]["agentTree"]["toolCalls"]
    assert [(c["toolName"], c["result"]) for c in tool_calls] == [("calculator", {"result": 5})]


async def test_reads_take_the_stored_snapshot_not_the_log(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        (run_id,) = await chat(svc, "hello")
        (stored,) = await svc.store.read_run_snapshots(key("t1"))
        marked = {**stored.data["assistant"], "content": "from the snapshot"}
        await svc.store.save_run_snapshots(
            key("t1"),
            [
                RunSnapshot(
                    stored.thread_id,
                    run_id,
                    stored.first_event_id,
                    stored.last_event_id,
                    {**stored.data, "assistant": marked},
                    stored.created_at,
                )
            ],
        )
        body = await history(svc)
    assert assistants(body)[0]["content"] == "from the snapshot"


async def test_a_run_in_progress_is_folded_from_its_events(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        first, waiting = await chat(svc, "hello", NOTE)
        snapshots = await svc.store.read_run_snapshots(key("t1"))
        body = await history(svc)

    assert [s.run_id for s in snapshots] == [first]
    finished, open_run = assistants(body)
    assert (finished["runId"], finished["isStreaming"]) == (first, False)
    assert (open_run["runId"], open_run["isStreaming"]) == (waiting, True)
    (call,) = open_run["agentTree"]["toolCalls"]
    assert (call["toolName"], call["isLoading"]) == ("save_note", True)
    assert call["confirmation"]["requestId"]


async def test_pages_are_whole_runs_and_join_up_to_the_whole_history(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        run_ids = await chat(svc, *(f"message {i}" for i in range(5)))
        whole = await history(svc, limit=200)
        pages = [await history(svc, limit=3)]
        while "nextCursor" in pages[-1]:
            pages.append(await history(svc, limit=3, cursor=int(pages[-1]["nextCursor"])))

    # 3 messages fit one run of two (a page never splits a run); newest page first.
    assert [[m["runId"] for m in assistants(p)] for p in pages] == [[r] for r in run_ids[::-1]]
    assert [m for p in pages[::-1] for m in p["messages"]] == whole["messages"]
    assert {p["nextEventId"] for p in pages} == {whole["nextEventId"]}
    assert len(whole["messages"]) == 10


async def test_a_cursor_before_the_first_event_is_an_empty_last_page(db_url: str) -> None:
    # ``?cursor=0`` answered 500 on PostgreSQL (a negative LIMIT) and a wrong page on SQLite.
    async with service(db_url) as svc:
        await chat(svc, "hello", "again")
        first = await history(svc, limit=200)
        at_zero = await history(svc, limit=200, cursor=0)
        at_one = await history(svc, limit=200, cursor=1)

    assert len(first["messages"]) == 4
    for page in (at_zero, at_one):
        assert page["messages"] == []
        assert "nextCursor" not in page
        assert page["nextEventId"] == first["nextEventId"]


async def test_a_thread_without_snapshots_is_folded_once_and_then_snapshotted(
    sqlite_url: str,
) -> None:
    async with service(sqlite_url) as svc:
        run_ids = await chat(svc, "one", "two", "three")
        before = await history(svc)
        assert isinstance(svc.store, SqlStore)
        async with write(svc.store.engine) as conn:  # a thread from before revision 0004
            await conn.execute(delete(run_snapshots))
        lazily = await history(svc, limit=2)
        restored = await svc.store.read_run_snapshots(key("t1"))
        after = await history(svc)

    assert assistants(lazily) == assistants(before)[-1:]
    assert lazily["nextCursor"]
    assert [s.run_id for s in restored] == run_ids
    assert after == before


async def test_a_failed_snapshot_write_never_fails_the_ending_and_a_read_repairs_it(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(thread_id: str, snapshots: Sequence[RunSnapshot], /) -> None:
        raise OSError("the disk is full")

    def fold_fails(self: LogFold, log: Iterable[tuple[StoredEvent, WireEvent | None]]) -> None:
        raise ValueError("an event the fold cannot read")

    async with service(sqlite_url) as svc:
        with monkeypatch.context() as patch:
            # The run's own fold fails (its snapshot would ride with the close), and so does
            # the ending's fallback, which folds the log and saves the snapshot on its own.
            patch.setattr(LogFold, "add", fold_fails)
            patch.setattr(svc.store, "save_run_snapshots", broken)
            (run_id,) = await chat(svc, "hello")
            row = await svc.store.get_run(run_id)
            unread = await svc.store.read_run_snapshots(key("t1"))
        body = await history(svc)
        repaired = await svc.store.read_run_snapshots(key("t1"))

    assert row is not None
    assert row.status == "completed"
    assert unread == []
    assert [s.run_id for s in repaired] == [run_id]
    assert [m["runId"] for m in assistants(body)] == [run_id]
