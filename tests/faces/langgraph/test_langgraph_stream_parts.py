"""``StreamParts`` and ``ThreadValues``: the LangGraph face's one mapping, played on wire events —
the endings a real run rarely shows (a failed run, a cancel, the server going away, a takeover),
a sub-agent's text kept out of the messages, and an output schema's ``structured_response``."""

from __future__ import annotations

from typing import Any

from runyard.faces.langgraph.stream_parts import StreamParts
from runyard.faces.langgraph.thread_values import ThreadValues, human_message
from runyard.protocol import WireEvent, parse_event
from runyard.service import ORCHESTRATOR_ID, RunPause

USER = human_message("m1", "hello")


def event(kind: str, payload: dict[str, Any], agent: str = ORCHESTRATOR_ID) -> WireEvent:
    return parse_event({"type": kind, "runId": "r1", "agentId": agent, "payload": payload})


def mapper(*modes: str) -> StreamParts:
    return StreamParts("r1", "t1", "assistant", modes, ThreadValues({"m1": USER}))


def played(parts: StreamParts, events: list[WireEvent]) -> list[tuple[str, Any]]:
    return [
        (part.event, part.data)
        for part in [*parts.started(), *(p for e in events for p in parts.event(e))]
    ]


STARTED = event("run-start", {"messageId": "m1"})
SAID = event("text-delta", {"text": "hi"})


def test_a_failed_run_ends_with_error_then_end() -> None:
    parts = mapper("updates")
    failed = event("run-finish", {"status": "error", "reason": "model down"})

    seen = played(parts, [STARTED, SAID, failed])

    assert [e for e, _ in seen] == ["metadata", "updates", "error"]
    assert seen[-1][1] == {"error": "run_failed", "message": "model down"}
    assert [p.event for p in parts.ended()] == ["end"]


def test_a_run_closed_unfinished_or_cancelled_is_told_so() -> None:
    closed, cancelled = mapper("values"), mapper("values")
    played(closed, [STARTED, SAID])
    played(cancelled, [STARTED, SAID])

    failed = closed.paused(RunPause(2, "error", "restarted"), [])
    stopped = cancelled.paused(RunPause(2, "cancelled", "user_cancelled"), [])

    assert [p.event for p in failed] == ["values", "error"]
    assert failed[-1].data["message"] == "restarted"
    assert [p.event for p in stopped] == ["values"]  # the turn it said, and no error
    assert [m["content"] for m in stopped[0].data["messages"]] == ["hello", "hi"]


def test_a_server_going_away_ends_without_end_so_the_sdk_rejoins() -> None:
    parts = mapper("values")
    played(parts, [STARTED, SAID])

    assert parts.stopped(2) == []
    assert parts.ended() == []


def test_a_takeover_that_says_again_what_was_sent_is_an_error() -> None:
    parts = mapper("messages-tuple")

    (told,) = parts.taken_over(1)

    assert told.event == "error"
    assert told.data["error"] == "run_taken_over"
    assert "lastEventId=1" in told.data["message"]


def test_a_sub_agents_text_is_no_message_but_custom_tells_its_start() -> None:
    parts = mapper("messages-tuple", "custom")
    spawned = event(
        "agent-spawned", {"parentId": ORCHESTRATOR_ID, "role": "adder"}, agent="agent-002"
    )

    seen = played(parts, [STARTED, spawned, event("text-delta", {"text": "sub"}, "agent-002")])

    assert [e for e, _ in seen] == ["metadata", "custom"]
    assert seen[1][1]["type"] == "agent-spawned"


def test_an_output_schemas_answer_is_the_structured_response() -> None:
    values = ThreadValues({"m1": USER})
    finished = event("run-finish", {"status": "completed", "output": {"answer": 4}})
    for each in (STARTED, SAID, finished):
        values.apply(each)

    assert values.values()["structured_response"] == {"answer": 4}
    assert [m["type"] for m in values.values()["messages"]] == ["human", "ai"]
