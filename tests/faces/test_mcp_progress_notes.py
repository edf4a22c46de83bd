"""``ProgressNotes``: the MCP face's progress messages and the answer it keeps, from wire events
(the events as the log gives them, with their ids)."""

from __future__ import annotations

from typing import Any

from runyard.faces.mcp.progress import TEXT_STEP, ProgressNotes
from runyard.protocol import parse_event

ORCHESTRATOR = "agent-001"


def event(kind: str, payload: dict[str, Any], agent: str = ORCHESTRATOR) -> Any:
    return parse_event({"type": kind, "runId": "r", "agentId": agent, "payload": payload})


def text(words: str, agent: str = ORCHESTRATOR) -> Any:
    return event("text-delta", {"text": words}, agent)


def test_the_answer_is_the_orchestrators_text_its_stretches_apart() -> None:
    notes = ProgressNotes()
    given = [
        text("Let me add."),
        event("tool-call", {"toolCallId": "c1", "toolName": "calculator", "args": {}}),
        text("a sub-agent's words", agent="agent-002"),
        event("tool-result", {"toolCallId": "c1", "result": 2}),
        text("It is "),
        text("2."),
    ]

    said = [notes.note(i, e) for i, e in enumerate(given, start=1)]

    assert notes.answer == "Let me add.\n\nIt is 2."
    assert said == [None, "calling calculator", None, "calculator done", None, None]


def test_reasoning_is_one_thinking_note_per_stretch() -> None:
    notes = ProgressNotes()
    reasoning = event("reasoning-delta", {"text": "hm"})
    given = [reasoning, reasoning, text("x"), reasoning]

    assert [notes.note(i, e) for i, e in enumerate(given, start=1)] == [
        "thinking",
        None,
        None,
        "thinking",
    ]


def test_long_text_is_noted_every_step_with_its_tail() -> None:
    notes = ProgressNotes()
    said = [notes.note(i, text("word ")) for i in range(1, TEXT_STEP // 5 * 2 + 1)]

    written = [s for s in said if s is not None]
    assert len(written) == 2
    assert written[0].startswith("writing: …word word")


def test_text_said_again_after_a_takeover_is_kept_once() -> None:
    notes = ProgressNotes()
    notes.note(1, text("Hello "))
    notes.note(2, text("wor"))  # the stopped server's partial output
    notes.note(3, event("run-resumed", {"afterEventId": 1}))
    notes.note(4, text("world."))

    assert notes.answer == "Hello world."
