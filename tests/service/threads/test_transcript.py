"""A run's transcript is the events that make its messages, in log order: deltas of one kind in a
row joined, empty ones and a sub-agent's left out, and what a takeover said again dropped."""

from __future__ import annotations

from runyard.protocol import (
    ReasoningDeltaEvent,
    ReasoningDeltaPayload,
    RunFinishEvent,
    RunFinishPayload,
    RunResumedEvent,
    RunResumedPayload,
    RunStartEvent,
    RunStartPayload,
    StatusEvent,
    StatusPayload,
    TextDeltaEvent,
    TextDeltaPayload,
    ToolCallEvent,
    ToolCallPayload,
    ToolErrorEvent,
    ToolErrorPayload,
    ToolResultEvent,
    ToolResultPayload,
    WireEvent,
)
from runyard.service import ORCHESTRATOR_ID
from runyard.service.threads.transcript import TranscriptFold

RUN = "run-1"


def text(piece: str, agent: str = ORCHESTRATOR_ID) -> TextDeltaEvent:
    return TextDeltaEvent(run_id=RUN, agent_id=agent, payload=TextDeltaPayload(text=piece))


def reasoning(piece: str) -> ReasoningDeltaEvent:
    payload = ReasoningDeltaPayload(text=piece)
    return ReasoningDeltaEvent(run_id=RUN, agent_id=ORCHESTRATOR_ID, payload=payload)


def folded(events: list[WireEvent]) -> TranscriptFold:
    fold = TranscriptFold()
    for event_id, event in enumerate(events, 1):
        fold.apply(event, event_id)
    return fold


def test_deltas_in_a_row_are_joined_and_what_makes_no_message_is_left_out() -> None:
    call = ToolCallPayload(tool_call_id="c1", tool_name="calc", args={"x": [1, None]})
    fold = folded(
        [
            RunStartEvent(run_id=RUN, agent_id="x", payload=RunStartPayload(message_id="m1")),
            reasoning("let me "),
            reasoning("think"),
            text("Hel"),
            text(""),
            StatusEvent(run_id=RUN, agent_id=ORCHESTRATOR_ID, payload=StatusPayload(message="…")),
            text("lo"),
            text("a sub-agent's", agent="agent-002"),
            reasoning("again"),
            ToolCallEvent(run_id=RUN, agent_id=ORCHESTRATOR_ID, payload=call),
            ToolResultEvent(
                run_id=RUN,
                agent_id=ORCHESTRATOR_ID,
                payload=ToolResultPayload(tool_call_id="c1", result={"r": 1}),
            ),
            ToolErrorEvent(
                run_id=RUN,
                agent_id=ORCHESTRATOR_ID,
                payload=ToolErrorPayload(tool_call_id="c2", error="denied"),
            ),
            RunFinishEvent(
                run_id=RUN, agent_id="x", payload=RunFinishPayload(status="error", reason="boom")
            ),
        ]
    )
    assert fold.entries() == [
        {"kind": "start", "messageId": "m1"},
        {"kind": "reasoning", "text": "let me think"},
        {"kind": "text", "text": "Hello"},
        {"kind": "reasoning", "text": "again"},
        {"kind": "call", "toolCallId": "c1", "toolName": "calc", "args": {"x": [1, None]}},
        {"kind": "result", "toolCallId": "c1", "result": {"r": 1}},
        {"kind": "error", "toolCallId": "c2", "error": "denied"},
        {"kind": "finish", "eventId": 13, "status": "error", "output": None},
    ]


def test_a_takeover_drops_what_it_said_again() -> None:
    resumed = RunResumedPayload(after_event_id=2)
    fold = folded(
        [
            text("kept"),
            text(" too"),
            text(" lost"),
            RunResumedEvent(run_id=RUN, agent_id=ORCHESTRATOR_ID, payload=resumed),
            text(" said again"),
        ]
    )
    assert fold.entries() == [{"kind": "text", "text": "kept too said again"}]
