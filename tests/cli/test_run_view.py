"""One run on a real (emulated) terminal: the live tree, and how it makes room for a question."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console
from scripted_server import confirmation_events
from terminal_screen import Screen

from runyard.cli.chat.answers import ConfirmationAsker
from runyard.cli.chat.run_view import RunView
from runyard.protocol import ConfirmationRequestEvent, parse_event

REQUEST = {"severity": "warning", "message": "Save it?"}


def _terminal() -> tuple[Console, io.StringIO]:
    output = io.StringIO()
    console = Console(
        file=output, force_terminal=True, force_interactive=True, color_system=None, width=60
    )
    return console, output


def _typed(output: io.StringIO, answer: str) -> Any:
    """``input()`` as a terminal user answers it: what they type is echoed, then a newline."""

    def read(prompt: str = "") -> str:
        output.write(f"{prompt}{answer}\n")
        return answer

    return read


def test_an_answered_confirmation_stays_on_screen_above_the_rest_of_the_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    console, output = _terminal()
    monkeypatch.setattr("builtins.input", _typed(output, "y"))
    events = [parse_event(e) for e in confirmation_events(REQUEST, approved_result={"id": "n1"})]
    with RunView(console) as view:
        for event in events[:3]:
            view.apply(event)
        request = events[2]
        assert isinstance(request, ConfirmationRequestEvent)
        with view.paused():
            answer = ConfirmationAsker(console).ask(request.payload)
        view.note("approved")
        for event in events[3:]:
            view.apply(event)
    assert answer == {"approved": True}

    lines = Screen().feed(output.getvalue()).text().splitlines()
    box = [line for line in lines if line.endswith(("╮", "│", "╯"))]
    assert len(box) == 4, "\n".join(
        lines
    )  # top, message, tool call, bottom: nothing of it overwritten
    assert box[1].startswith("│ Save it?")
    after_box = lines[lines.index(box[-1]) + 1 :]
    assert after_box[:2] == ["Approve? [y/n]: y", "approved"]
    assert after_box[2:] == [
        "🤖 orchestrator",
        '├── 🔧 ask {"topic": "colours"}',
        '│   └── → {"id": "n1"}',
        "└── 💬 Done.",
    ]
