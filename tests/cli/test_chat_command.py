"""``runyard chat`` against a scripted server: rendering, reconnects, confirmations, exit codes."""

from __future__ import annotations

from typing import Any

import pytest
from scripted_server import (
    ScriptedServer,
    confirmation_events,
    reply_events,
    serving,
)
from typer.testing import CliRunner, Result

from runyard.cli import app

WORDS = ["You", " said:", " hello", " there"]


def _chat(script: ScriptedServer, *args: str, answers: str | None = None) -> Result:
    with serving(script):
        # The --url flag wins over RUNYARD_HOST/RUNYARD_PORT.
        env = {"RUNYARD_HOST": "192.0.2.1", "RUNYARD_PORT": "9"}
        return CliRunner().invoke(
            app, ["chat", "t1", "--url", script.url, *args], input=answers, env=env
        )


def test_one_message_shows_reasoning_and_reply_then_exits_zero() -> None:
    script = ScriptedServer(reply_events(WORDS))
    result = _chat(script, "-m", "hello there")
    assert result.exit_code == 0, result.output
    assert script.posted == [{"message": "hello there"}]
    assert "💭 Thinking it over." in result.output
    assert "💬 You said: hello there" in result.output


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_without_url_chat_finds_the_server_at_runyard_host_and_port(host: str) -> None:
    script = ScriptedServer(reply_events(WORDS))
    with serving(script):
        port = script.url.rsplit(":", 1)[1]
        env = {"RUNYARD_HOST": host, "RUNYARD_PORT": port}
        result = CliRunner().invoke(app, ["chat", "t1", "-m", "hello there"], env=env)
    assert result.exit_code == 0, result.output
    assert script.posted == [{"message": "hello there"}]


def test_a_dropped_stream_reconnects_and_shows_the_reply_once() -> None:
    script = ScriptedServer(reply_events(WORDS), drop_after=3, replay_overlap=True)
    result = _chat(script, "-m", "hello there")
    assert result.exit_code == 0, result.output
    assert script.cursors == [None, "3"]
    assert "reconnecting" in result.output
    assert result.output.count("Thinking it over.") == 1
    assert result.output.count("You said:") == 1
    assert "💬 You said: hello there" in result.output


def test_an_approval_answered_yes_shows_the_tool_result() -> None:
    script = ScriptedServer(confirmation_events(_approval(), approved_result={"id": "n1"}))
    result = _chat(script, "-m", "go", answers="y\n")
    assert result.exit_code == 0, result.output
    assert script.answers == {"cr_1": {"approved": True}}
    assert "Save it?" in result.output
    assert '→ {"id": "n1"}' in result.output


def test_an_approval_answered_no_shows_the_denial() -> None:
    script = ScriptedServer(confirmation_events(_approval(), approved_result={"id": "n1"}))
    result = _chat(script, "-m", "go", answers="n\n")
    assert script.answers == {"cr_1": {"approved": False}}
    assert "✗ denied" in result.output


def test_end_of_input_at_a_confirmation_denies_it() -> None:
    script = ScriptedServer(confirmation_events(_approval(), approved_result={"id": "n1"}))
    result = _chat(script, "-m", "go", answers="")
    assert script.answers == {"cr_1": {"approved": False}}
    assert "No answer (end of input): denied." in result.output


def test_questions_are_answered_with_options_or_free_text() -> None:
    questions = [
        {"id": "q1", "question": "Which colour?", "type": "single", "options": ["red", "green"]},
        {"id": "q2", "question": "Any others?", "type": "multi", "options": ["a", "b", "c"]},
        {"id": "q3", "question": "Why?", "type": "text"},
        {"id": "q4", "question": "Anything else?", "type": "text"},
    ]
    request = {**_approval(), "inputType": "questions", "questions": questions}
    script = ScriptedServer(confirmation_events(request, approved_result="thanks"))
    result = _chat(script, "-m", "go", answers="2\n1, 3\nI like it\n\n")
    assert result.exit_code == 0, result.output
    assert script.answers["cr_1"] == {
        "approved": True,
        "answers": [
            {"questionId": "q1", "selectedOptions": ["green"]},
            {"questionId": "q2", "selectedOptions": ["a", "c"]},
            {"questionId": "q3", "selectedOptions": [], "customText": "I like it"},
            {"questionId": "q4", "selectedOptions": [], "skipped": True},
        ],
    }


def test_a_text_request_sends_the_typed_answer() -> None:
    request = {**_approval(), "inputType": "text"}
    script = ScriptedServer(confirmation_events(request, approved_result="ok"))
    _chat(script, "-m", "go", answers="blue please\n")
    assert script.answers["cr_1"] == {"approved": True, "userInput": "blue please"}


def test_a_busy_thread_is_an_error_with_exit_code_one() -> None:
    result = _chat(ScriptedServer([], chat_status=409), "-m", "hello")
    assert result.exit_code == 1
    assert "HTTP 409" in result.output
    assert "a run is active on this thread" in result.output


def test_an_unreachable_server_is_named_in_the_error() -> None:
    result = CliRunner().invoke(app, ["chat", "-m", "hi", "--url", "http://127.0.0.1:9"])
    assert result.exit_code == 1
    assert "Cannot reach runyard at http://127.0.0.1:9" in result.output


def test_the_prompt_loop_sends_each_line_until_exit() -> None:
    script = ScriptedServer(reply_events(WORDS))
    result = _chat(script, answers="hello there\n\n/exit\n")
    assert result.exit_code == 0, result.output
    assert script.posted == [{"message": "hello there"}]
    assert "thread t1" in result.output
    assert "💬 You said: hello there" in result.output


def test_a_line_ending_in_a_backslash_continues_the_message() -> None:
    script = ScriptedServer(reply_events(WORDS))
    result = _chat(script, answers="first line\\\nsecond line\n/exit\n")
    assert result.exit_code == 0, result.output
    assert script.posted == [{"message": "first line\nsecond line"}]


def test_a_failed_run_exits_with_one_and_says_why() -> None:
    events = reply_events(["Hi"])
    events[-1] = {**events[-1], "payload": {"status": "error", "reason": "provider unavailable"}}
    result = _chat(ScriptedServer(events), "-m", "hello")
    assert result.exit_code == 1
    assert "run error: provider unavailable" in result.output


def _approval() -> dict[str, Any]:
    return {"severity": "warning", "message": "Save it?"}
