"""What a face's client sees when the run it follows is taken over mid-step (issue 27): the run's
new server says again what came after the step it resumes from (``run-resumed``).

A streaming face cannot take back text it sent, so a takeover that supersedes something it sent
ends its stream with an error naming where to follow the run and read its answer; one that
supersedes nothing it sent goes by unseen; the LangGraph face's state reads the log without
what was said again. gRPC forwards ``run_resumed`` for its clients to
drop what it supersedes, and ``Invoke`` answers with the text as it stands after the drop.

The log is written here as a dead server and its successor would have written it; the faces
read it through the service's own follower.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from runyard.faces.agui.events import AguiEvents
from runyard.faces.ai_sdk.chunks import UiMessageChunks
from runyard.faces.face_events import EventMapper, face_values
from runyard.faces.face_runs import FaceRun
from runyard.faces.langgraph.stream_parts import Part, StreamParts
from runyard.faces.langgraph.thread_state import folded
from runyard.faces.langgraph.thread_values import ThreadValues
from runyard.faces.openai.chunks import DONE, CompletionChunks
from runyard.grpc.events import stream_events
from runyard.grpc.invoke_result import InvokeResult
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.protocol import parse_event
from runyard.service import ORCHESTRATOR_ID, EventLog, FollowedRun, Owner
from runyard.service.bus import InProcessEventBus
from runyard.storage import StoredEvent
from runyard.storage.inmemory import InMemoryStore

THREAD = "acme/alice/t1"


def said(kind: str, **payload: Any) -> dict[str, Any]:
    return {"type": kind, "runId": "r1", "agentId": ORCHESTRATOR_ID, "payload": payload}


def taken_over_after(after: int) -> list[dict[str, Any]]:
    """A run whose first server said "old" (event 2) and died; its successor resumed after
    event ``after`` and said "new"."""
    return [
        said("run-start", messageId="m1"),
        said("text-delta", text="old"),
        said("run-resumed", afterEventId=after),
        said("text-delta", text="new"),
        said("run-finish", status="completed"),
    ]


@dataclass(frozen=True)
class Parts:
    store: InMemoryStore
    events: EventLog


async def mapped(mapper: EventMapper, logged: list[dict[str, Any]]) -> list[Any]:
    """Every value ``mapper`` gives for the run, followed from before its start."""
    store, bus = InMemoryStore(), InProcessEventBus()
    events = EventLog(store, bus)
    try:
        await store.open_run("r1", thread_id=THREAD, tenant_id="acme", owner="gone")
        await store.append_events(
            THREAD,
            [StoredEvent(THREAD, i, "r1", e["type"], e, i) for i, e in enumerate(logged, 1)],
        )
        await store.close_run("r1", "completed", epoch=1)
        run = FaceRun(Parts(store, events), None, "t1", FollowedRun(THREAD, "r1", 0))  # type: ignore[arg-type]
        return [v async for batch in face_values(run, mapper, asyncio.Event()) for v in batch]
    finally:
        await events.close()
        await bus.close()


def openai_chunks() -> CompletionChunks:
    return CompletionChunks("c1", "assistant", 0, {"threadId": "t1", "runId": "r1"}, False)


async def test_openai_stream_ends_with_an_error_when_a_takeover_supersedes_sent_text() -> None:
    values = await mapped(openai_chunks(), taken_over_after(1))

    contents = [c["choices"][0]["delta"].get("content") for c in values if "choices" in c]
    assert "old" in contents
    assert "new" not in contents  # never shown after the text it would contradict
    (error,) = [v["error"] for v in values if isinstance(v, dict) and "error" in v]
    assert error["code"] == "run_taken_over"
    assert "GET /v1/events/t1?lastEventId=1" in error["message"]
    assert "GET /v1/threads/t1/messages" in error["message"]
    assert values[-1] == DONE


async def test_a_takeover_that_supersedes_nothing_sent_goes_by_unseen() -> None:
    values = await mapped(openai_chunks(), taken_over_after(2))

    contents = [c["choices"][0]["delta"].get("content") for c in values if "choices" in c]
    assert [c for c in contents if c] == ["old", "new"]
    assert not [v for v in values if isinstance(v, dict) and "error" in v]


@pytest.mark.parametrize(
    ("mapper", "is_error"),
    [
        (
            UiMessageChunks("t1", "r1", None, set()),
            lambda v: isinstance(v, dict) and v.get("type") == "error",
        ),
        (
            AguiEvents("t1", "agui-run", "r1"),
            lambda v: isinstance(v, dict) and v.get("type") == "RUN_ERROR",
        ),
        (
            StreamParts("r1", "t1", "assistant", ["messages-tuple"], ThreadValues({})),
            lambda v: isinstance(v, Part) and v.event == "error",
        ),
    ],
    ids=["ai-sdk", "ag-ui", "langgraph"],
)
async def test_every_streaming_face_ends_its_stream_on_such_a_takeover(
    mapper: EventMapper, is_error: Any
) -> None:
    values = await mapped(mapper, taken_over_after(1))

    errors = [v for v in values if is_error(v)]
    assert len(errors) == 1
    assert "lastEventId=1" in repr(errors[0])
    assert "new" not in repr(values[values.index(errors[0]) :])


async def test_a_langgraph_state_read_keeps_what_the_takeover_said_again_once() -> None:
    store = InMemoryStore()
    thread = await store.save_thread(THREAD, tenant_id="acme", resource_id="alice")
    logged = taken_over_after(1)
    await store.append_events(
        THREAD, [StoredEvent(THREAD, i, "r1", e["type"], e, i) for i, e in enumerate(logged, 1)]
    )
    bus = InProcessEventBus()
    parts = Parts(store, EventLog(store, bus))
    try:
        values, _ = await folded(parts, Owner("acme", "alice"), thread)  # type: ignore[arg-type]
    finally:
        await parts.events.close()
        await bus.close()

    assert [m["content"] for m in values.values()["messages"]] == ["new"]


def grpc_events(logged: list[dict[str, Any]]) -> list[pb.StreamEvent]:
    made = []
    for event_id, data in enumerate(logged, 1):
        for event in stream_events(parse_event(data)):
            event.meta.event_id = event_id
            made.append(event)
    return made


def test_grpc_forwards_run_resumed_with_the_id_to_drop_after() -> None:
    (resumed,) = [e for e in grpc_events(taken_over_after(1)) if e.HasField("run_resumed")]
    assert resumed.run_resumed.after_event_id == 1


def test_grpc_invoke_answers_with_the_text_as_it_stands_after_the_takeover() -> None:
    result = InvokeResult("r1", "t1")
    for event in grpc_events(taken_over_after(1)):
        result.add(event)
    kept = InvokeResult("r1", "t1")
    for event in grpc_events(taken_over_after(2)):
        kept.add(event)

    assert result.text == "new"
    assert kept.text == "oldnew"
