"""Several lines as one message at the ``you`` prompt: a trailing backslash, or a paste."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from rich.console import Console
from scripted_server import ScriptedServer, reply_events, serving

from runyard.cli.chat import MessageReader


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
    with serving(script), _chat_on_a_terminal(script.url) as (terminal, screen):
        screen.wait_for("you: ")
        os.write(terminal, b"first line\nsecond line\n")  # one write, as a paste arrives
        screen.wait_for("Done.")
        os.write(terminal, b"/exit\n")
    assert script.posted == [{"message": "first line\nsecond line"}]


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class _Screen:
    """Everything the program wrote to the terminal (colours removed), and a wait until some text shows."""

    def __init__(self, terminal: int) -> None:
        self._terminal = terminal
        self._text = ""
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def wait_for(self, text: str, timeout: float = 30) -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: text in self._text, timeout):
                raise AssertionError(f"{text!r} never showed; the screen:\n{self._text}")

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._terminal, 4096)
            except OSError:  # the program closed its side
                chunk = b""
            with self._changed:
                self._text += _ANSI.sub("", chunk.decode(errors="replace"))
                self._changed.notify_all()
            if not chunk:
                return


@contextmanager
def _chat_on_a_terminal(url: str) -> Iterator[tuple[int, _Screen]]:
    """``runyard chat`` with a pseudo-terminal as its stdin, stdout and stderr."""
    terminal, program_side = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "runyard", "chat", "t1", "--url", url],
        stdin=program_side,
        stdout=program_side,
        stderr=program_side,
        env={**os.environ, "COLUMNS": "100", "TERM": "xterm"},
    )
    os.close(program_side)
    try:
        yield terminal, _Screen(terminal)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(terminal)
