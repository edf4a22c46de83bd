"""The agent tree as the terminal shows it: order, nesting, outcomes and endings."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from runyard.cli.chat.tree_view import render_tree, short_json
from runyard.protocol import build_agent_tree, parse_event


def _event(kind: str, agent: str, **payload: Any) -> Any:
    return parse_event({"type": kind, "runId": "r1", "agentId": agent, "payload": payload})


def _text(events: list[Any]) -> str:
    console = Console(record=True, width=100, color_system=None)
    console.print(render_tree(build_agent_tree(events)))
    return console.export_text()


def test_a_delegating_run_draws_sub_agents_tools_and_tasks_in_order() -> None:
    tasks = [
        {"id": "t1", "description": "Find notes", "status": "completed"},
        {"id": "t2", "description": "Summarise", "status": "in_progress"},
    ]
    events = [
        _event("run-start", "a1", messageId="m1"),
        _event("reasoning-delta", "a1", text="Let me plan."),
        _event("tasks-update", "a1", tasks=tasks),
        _event("tool-call", "a1", toolCallId="c1", toolName="delegate", args={"role": "finder"}),
        _event("agent-spawned", "a2", parentId="a1", role="finder", tools=["list_notes"]),
        _event("tool-call", "a2", toolCallId="c2", toolName="list_notes", args={}),
        _event("tool-result", "a2", toolCallId="c2", result={"notes": []}),
        _event("agent-completed", "a2", role="finder", result="No notes"),
        _event("tool-result", "a1", toolCallId="c1", result={"result": "No notes"}),
        _event(
            "tool-call", "a1", toolCallId="c3", toolName="calculator", args={"expression": "1/0"}
        ),
        _event("tool-error", "a1", toolCallId="c3", error="division by zero"),
        _event("text-delta", "a1", text="You have"),
        _event("text-delta", "a1", text=" no notes."),
        _event("run-finish", "a1", status="completed"),
    ]
    assert _text(events).splitlines() == [
        "🤖 orchestrator",
        "├── 📋 tasks",
        "│   ├── ✔ Find notes",
        "│   └── ▶ Summarise",
        "├── 💭 Let me plan.",
        '├── 🔧 delegate {"role": "finder"}',
        '│   └── → {"result": "No notes"}',
        "├── 🤖 finder  [list_notes]",
        "│   ├── 🔧 list_notes {}",
        '│   │   └── → {"notes": []}',
        "│   └── ✅ No notes",
        '├── 🔧 calculator {"expression": "1/0"}',
        "│   └── ✗ division by zero",
        "└── 💬 You have no notes.",
    ]


def test_a_call_waiting_for_approval_and_a_cancelled_run_say_so() -> None:
    call = {"toolCallId": "c1", "toolName": "save_note", "args": {"text": "x"}}
    events = [
        _event("run-start", "a1", messageId="m1"),
        _event("tool-call", "a1", **call),
        _event(
            "confirmation-request",
            "a1",
            requestId="c1",
            severity="warning",
            message="Save?",
            **call,
        ),
    ]
    assert "❓ Save?" in _text(events)
    events.append(_event("run-finish", "a1", status="cancelled", reason="user_cancelled"))
    assert _text(events).splitlines()[-1] == "└── ⏹ cancelled (user_cancelled)"


def test_a_failed_run_shows_its_reason() -> None:
    events = [
        _event("run-start", "a1", messageId="m1"),
        _event("error", "a1", content="provider unavailable"),
        _event("run-finish", "a1", status="error", reason="provider unavailable"),
    ]
    assert _text(events).splitlines()[1:] == [
        "├── ⚠ provider unavailable",
        "└── ✗ failed: provider unavailable",
    ]


def test_long_values_are_cut_to_one_line() -> None:
    assert short_json({"text": "é" * 10}) == '{"text": "éééééééééé"}'
    cut = short_json("x" * 1000, limit=20)
    assert len(cut) == 20
    assert cut.endswith("…")


def test_an_answers_content_blocks_are_drawn_in_their_place() -> None:
    blocks = [
        {"type": "image", "mime_type": "image/png", "base64": "iVBORw==", "filename": "demo.png"},
        {"type": "file", "mime_type": "application/pdf", "file_id": "file_1"},
        {"type": "citation", "url": "https://example.com", "title": "Ex"},
    ]
    events = [
        _event("run-start", "a1", messageId="m1"),
        _event("text-delta", "a1", text="Here it is."),
        _event("content", "a1", blocks=blocks, messageId="m2"),
        _event("run-finish", "a1", status="completed"),
    ]
    shown = _text(events)
    assert shown.index("Here it is.") < shown.index("📎 image image/png, 4 bytes (demo.png)")
    assert "📎 file application/pdf, file file_1" in shown
    assert "📎 source Ex https://example.com" in shown
