"""The LangGraph face's state reads replay finished runs from their snapshots' transcripts and
read only the log after them — and answer exactly what folding the whole log answers: the same
values (text, reasoning, tool calls and outcomes, ids, ``structured_response``, the failed
flag) at every checkpoint, the same history, and a fold a stream can go on from. A run whose
snapshot is missing (its process died before writing it) or was written before transcripts were
kept is folded from the log, and snapshotted again by the read."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest

from runyard.faces.langgraph.run_start import stream_values
from runyard.faces.langgraph.thread_state import folded, human, run_ends
from runyard.faces.langgraph.thread_values import ThreadValues
from runyard.messages import AgentMessage, TextPart
from runyard.protocol import (
    AgentSpawnedEvent,
    AgentSpawnedPayload,
    ReasoningDeltaEvent,
    ReasoningDeltaPayload,
    RunFinishEvent,
    RunFinishPayload,
    RunResumedEvent,
    RunResumedPayload,
    RunStartEvent,
    RunStartPayload,
    TextDeltaEvent,
    TextDeltaPayload,
    ToolCallEvent,
    ToolCallPayload,
    ToolErrorEvent,
    ToolErrorPayload,
    ToolResultEvent,
    ToolResultPayload,
    WireEvent,
    event_to_dict,
    parse_event,
)
from runyard.service import ORCHESTRATOR_ID, Owner, ServiceParts
from runyard.service.threads.history import store_snapshots
from runyard.storage import ForwardingStore, RunSnapshot, Store, StoredEvent, Thread, open_store
from sqlite_databases import MigratedSqlite

OWNER = Owner("acme", "alice")
THREAD = OWNER.thread_key("t1")
SUB = "agent-002"
SUPERSEDED = 18
"""The event run 2's takeover said again (its ``run-resumed`` has ``afterEventId`` 17)."""


class ReadCounting(ForwardingStore):
    """A store that notes the ``after_id`` and ``limit`` of every ``read_events``."""

    def __init__(self, inner: Store) -> None:
        super().__init__(inner)
        self.reads: list[tuple[int, int | None]] = []

    async def read_events(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        self.reads.append((after_id, limit))
        return await self.inner.read_events(thread_id, after_id=after_id, limit=limit)


@dataclass
class Parts:
    """The one part a state read takes: the store (a stream's start also names the event log,
    and reads nothing of it)."""

    store: ReadCounting
    events: object = None


@pytest.fixture(params=["memory", "sqlite"])
async def store(
    request: pytest.FixtureRequest, tmp_path: Path, migrated_sqlite: MigratedSqlite
) -> AsyncIterator[ReadCounting]:
    url = "memory://" if request.param == "memory" else migrated_sqlite.file(tmp_path / "t.db")
    opened = await open_store(url)
    yield ReadCounting(opened)
    await opened.close()


def said(run: str, event: type[WireEvent], payload: Any, agent: str = ORCHESTRATOR_ID) -> WireEvent:
    return event(run_id=run, agent_id=agent, payload=payload)


def text(run: str, piece: str, agent: str = ORCHESTRATOR_ID) -> WireEvent:
    return said(run, TextDeltaEvent, TextDeltaPayload(text=piece), agent)


def finish(run: str, status: str = "completed", **more: Any) -> WireEvent:
    return said(run, RunFinishEvent, RunFinishPayload(status=status, **more))


def start(run: str, message: AgentMessage) -> WireEvent:
    return said(run, RunStartEvent, RunStartPayload(message_id=message.id))


def call(
    run: str, call_id: str, tool: str, args: dict[str, Any], agent: str = ORCHESTRATOR_ID
) -> WireEvent:
    payload = ToolCallPayload(tool_call_id=call_id, tool_name=tool, args=args)
    return said(run, ToolCallEvent, payload, agent)


def finished_runs(users: Sequence[AgentMessage]) -> list[WireEvent]:
    """Events 1 to 27: three finished runs (a takeover in the second, a result in the third for a
    call of the second); every event kind a state shows, and some it does not."""
    u1, u2, u3 = users[:3]
    spawned = AgentSpawnedPayload(parent_id=ORCHESTRATOR_ID, role="researcher")
    return [
        start("r1", u1),
        said("r1", ReasoningDeltaEvent, ReasoningDeltaPayload(text="let me ")),
        said("r1", ReasoningDeltaEvent, ReasoningDeltaPayload(text="think")),
        text("r1", "Hello"),
        text("r1", ""),
        text("r1", " there"),
        call("r1", "c1", "calculator", {"expression": "2+3", "nested": [1, {"x": None}]}),
        call("r1", "c2", "save_note", {"text": "milk"}),
        said(
            "r1", ToolResultEvent, ToolResultPayload(tool_call_id="c1", result={"z": 5, "a": [2]})
        ),
        said("r1", ToolErrorEvent, ToolErrorPayload(tool_call_id="c2", error="denied")),
        said("r1", AgentSpawnedEvent, spawned, SUB),
        text("r1", "a sub-agent's words", SUB),
        call("r1", "s1", "search", {}, SUB),
        text("r1", "Done ✓"),
        finish("r1", output={"answer": 5}),  # 15
        start("r2", u2),
        text("r2", "Partial"),
        text("r2", " said by the stopped server"),  # 18, superseded
        said("r2", RunResumedEvent, RunResumedPayload(after_event_id=17)),
        text("r2", " again"),
        call("r2", "c3", "lookup", {}),
        text("r2", "text after a call"),
        finish("r2", "error", reason="boom"),  # 23
        start("r3", u3),
        said("r3", ToolResultEvent, ToolResultPayload(tool_call_id="c3", result="found")),
        text("r3", "ok"),
        finish("r3"),  # 27
    ]


def newest_runs(users: Sequence[AgentMessage]) -> list[WireEvent]:
    """Events 28 to 32: a finished run whose snapshot was never written, and a run going on."""
    u4, u5 = users[3:]
    return [start("r4", u4), text("r4", "four"), finish("r4"), start("r5", u5), text("r5", "fi")]


async def append(store: Store, events: Sequence[WireEvent]) -> None:
    first = await store.last_event_id(THREAD) + 1
    rows = [
        StoredEvent(THREAD, i, e.run_id, e.type, event_to_dict(e), 1_000 + i)
        for i, e in enumerate(events, first)
    ]
    await store.append_events(THREAD, rows)


@dataclass
class Written:
    thread: Thread
    users: dict[str, Any]
    log: list[tuple[int, WireEvent]]
    """The whole log as the old fold read it: without the superseded event."""


async def written(store: ReadCounting) -> Written:
    """The thread: runs 1 to 3 snapshotted as their endings do, then runs 4 and 5."""
    await store.save_thread(THREAD, tenant_id=OWNER.tenant_id, resource_id=OWNER.user_id)
    users = [AgentMessage.user(f"question {n}") for n in range(1, 6)]
    await store.save_messages(THREAD, users, tenant_id=OWNER.tenant_id, resource_id=OWNER.user_id)
    await append(store, finished_runs(users))
    await store_snapshots(store, THREAD)
    await append(store, newest_runs(users))
    thread = await store.get_thread(THREAD, tenant_id=OWNER.tenant_id, resource_id=OWNER.user_id)
    assert thread is not None
    stored = await store.inner.read_events(THREAD)  # as the old fold read it: back from the store
    log = [(e.id, parse_event(e.data)) for e in stored if e.id != SUPERSEDED]
    store.reads.clear()
    return Written(thread, {u.id: human(u) for u in users}, log)


def whole_fold(given: Written, upto: int | None = None) -> ThreadValues:
    """What the face answered before snapshots: every event up to ``upto``, folded."""
    values = ThreadValues(given.users)
    for i, event in given.log:
        if upto is None or i <= upto:
            values.apply(event)
    return values


def state(values: ThreadValues) -> tuple[dict[str, Any], bool]:
    return values.values(), values.failed


def parts(store: ReadCounting) -> ServiceParts:
    return cast(ServiceParts, Parts(store))


async def test_every_checkpoint_is_the_whole_logs_fold(store: ReadCounting) -> None:
    given = await written(store)
    for upto in range(0, 33):
        values, at = await folded(parts(store), OWNER, given.thread, upto)
        assert state(values) == state(whole_fold(given, upto)), upto
        assert at == max([i for i, _ in given.log if i <= upto], default=0), upto
    # A checkpoint in run 2 reads the log from run 1's end to run 2's, not to the log's end.
    store.reads.clear()
    await folded(parts(store), OWNER, given.thread, 20)
    assert store.reads == [(15, 8)]


async def test_a_stream_folds_on_from_its_start_as_from_the_whole_logs_fold(
    store: ReadCounting,
) -> None:
    given = await written(store)
    # A stream starts at the log's end (then), past every snapshot: from run 3's end on.
    for upto in range(27, 33):
        values, _ = await folded(parts(store), OWNER, given.thread, upto)
        before = whole_fold(given, upto)
        for _, event in (entry for entry in given.log if entry[0] > upto):
            assert values.apply(event) == before.apply(event), upto
        assert state(values) == state(before), upto


async def test_a_state_read_reads_the_log_only_after_the_snapshots(store: ReadCounting) -> None:
    given = await written(store)
    values, at = await folded(parts(store), OWNER, given.thread)
    assert state(values) == state(whole_fold(given))
    assert at == 32
    messages = values.values()["messages"]
    assert [m["id"] for m in messages if m["type"] != "human"] == [
        "ai-r1-1",
        "tool-c1",
        "tool-c2",
        "ai-r1-2",
        "ai-r2-1",
        "ai-r2-2",
        "tool-c3",
        "ai-r3-1",
        "ai-r4-1",
        "ai-r5-1",
    ]
    assert messages[1]["additional_kwargs"] == {"reasoning_content": "let me think"}
    assert messages[1]["tool_calls"][0]["args"] == {"expression": "2+3", "nested": [1, {"x": None}]}
    assert messages[6]["content"] == "Partial again"
    assert messages[9]["name"] == "lookup"  # its call was in the run before
    # Runs 1 to 3 come from their snapshots; run 4 had none: the read folded it and stored one.
    assert store.reads == [(27, None)]
    assert (await store.last_snapshot_event_id(THREAD)) == 30
    store.reads.clear()
    again, _ = await folded(parts(store), OWNER, given.thread)
    assert state(again) == state(values)
    assert store.reads == [(30, None)]


async def test_the_history_is_the_whole_logs_run_ends(store: ReadCounting) -> None:
    given = await written(store)
    before = ThreadValues(given.users)
    ends = []
    for i, event in given.log:
        before.apply(event)
        if isinstance(event, RunFinishEvent):
            ends.append((i, before.values()))
    ends.append((32, before.values()))

    assert await run_ends(parts(store), OWNER, given.thread) == ends
    assert [i for i, _ in ends] == [15, 23, 27, 30, 32]
    assert store.reads == [(27, None)]


async def test_snapshots_from_before_transcripts_fall_back_to_the_log(store: ReadCounting) -> None:
    given = await written(store)
    r1, r2, r3 = await store.read_run_snapshots(THREAD)
    old = {key: value for key, value in r2.data.items() if key != "transcript"}
    await store.save_run_snapshots(
        THREAD, [RunSnapshot(THREAD, "r2", r2.first_event_id, r2.last_event_id, old, r2.created_at)]
    )
    store.reads.clear()

    values, _ = await folded(parts(store), OWNER, given.thread)
    assert state(values) == state(whole_fold(given))
    assert store.reads == [(r1.last_event_id, None)]  # run 1's transcript, the log after it
    caught_up = await store.read_run_snapshots(THREAD)
    assert [s.run_id for s in caught_up] == ["r1", "r2", "r3", "r4"]
    assert all(s.data.get("transcript") for s in caught_up)
    assert caught_up[2] == r3


async def test_a_stream_knows_the_user_message_of_a_run_that_has_not_said_run_start_yet(
    store: ReadCounting,
) -> None:
    """A run followed as soon as it started (a LangGraph ``runs.create`` then ``join``): its
    start stored the user's message, and its driver writes ``run-start`` after the stream read
    the log (the run may even have ended, its answer saved, before the stream reads the
    messages), so the fold the stream goes on from must know the message all the same."""
    given = await written(store)
    asked = AgentMessage.user("question 6")
    answered = AgentMessage(role="assistant", parts=[TextPart(text="six")])
    await store.save_messages(
        THREAD, [asked, answered], tenant_id=OWNER.tenant_id, resource_id=OWNER.user_id
    )
    cursor = await store.last_event_id(THREAD)

    values = await stream_values(parts(store), OWNER, "t1", cursor)
    values.apply(start("r6", asked))

    assert values.values() == {
        **whole_fold(given).values(),
        "messages": [*whole_fold(given).values()["messages"], human(asked)],
    }
