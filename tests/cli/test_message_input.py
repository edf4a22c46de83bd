"""Several lines as one message at the ``you`` prompt: a trailing backslash, or a paste."""

from __future__ import annotations

import io
import os
import sys

import pytest
from pseudo_terminal import on_a_terminal
from rich.console import Console
from scripted_server import ScriptedServer, reply_events, serving

from runyard.cli.chat.message_input import MessageReader


def _reader(
    monkeypatch: pytest.MonkeyPatch, typed: list[str], waiting: list[bool]
) -> MessageReader:
    lines = iter(typed)
    monkeypatch.setattr("builtins.input", lambda: next(lines))
    answers = iter(waiting)
    return MessageReader(Console(file=io.StringIO()), waiting=lambda: next(answers))


def test_a_trailing_backslash_continues_and_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    reader = _reader(monkeypatch, ["one \\", "two\\", "three"], [False])
    assert reader.read() == "one \ntwo\nthree"


def test_lines_already_waiting_join_the_message(monkeypatch: pytest.MonkeyPatch) -> None:
    reader = _reader(monkeypatch, ["one", "", "two", "next message"], [True, True, False])
    assert reader.read() == "one\n\ntwo"


def test_a_line_with_nothing_waiting_is_the_whole_message(monkeypatch: pytest.MonkeyPatch) -> None:
    reader = _reader(monkeypatch, ["one", "two"], [False, False])
    assert reader.read() == "one"
    assert reader.read() == "two"


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX terminal")
def test_lines_pasted_into_a_real_terminal_are_one_message() -> None:
    script = ScriptedServer(reply_events(["Done."]))
    with serving(script):
        args = [sys.executable, "-m", "runyard", "chat", "t1", "--url", script.url]
        with on_a_terminal(args, os.environ) as chat:
            chat.wait_for("you: ")
            chat.type(b"first line\nsecond line\n")
            chat.wait_for("Done.")
            chat.type(b"/exit\n")
            assert chat.exit_status() == 0, chat.shown
    assert script.posted == [{"message": "first line\nsecond line"}]
