"""A program run on a pseudo-terminal, as at a user's terminal: wait until it shows some text.

Waiting on what the program shows, rather than on the clock, keeps a test exact however slowly a
loaded machine runs it. Colours and cursor moves are removed from the text that is matched.
"""

from __future__ import annotations

import os
import pty
import re
import signal
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class TerminalProgram:
    """A running program whose stdin, stdout and stderr are one pseudo-terminal."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str]) -> None:
        self._terminal, program_side = pty.openpty()
        self.process = subprocess.Popen(
            args,
            stdin=program_side,
            stdout=program_side,
            stderr=program_side,
            env={**env, "COLUMNS": "100", "LINES": "40", "TERM": "xterm"},
            # A shell starts background jobs with Ctrl-C ignored, and a child inherits that:
            # the program must get Ctrl-C as a terminal would give it, however the suite runs.
            preexec_fn=_default_ctrl_c,
        )
        os.close(program_side)
        self._shown = ""
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def shown(self) -> str:
        """Everything the program has written so far, colours and cursor moves removed."""
        with self._changed:
            return self._shown

    def wait_for(self, text: str, timeout: float = 60) -> None:
        """Return once ``text`` has been shown; fail with the screen after ``timeout`` seconds."""
        with self._changed:
            if not self._changed.wait_for(lambda: text in self._shown, timeout):
                raise AssertionError(f"{text!r} never showed; the terminal:\n{self._shown}")

    def type(self, keys: bytes) -> None:
        """Send ``keys`` in one write, as a paste arrives."""
        os.write(self._terminal, keys)

    def interrupt(self) -> None:
        """Ctrl-C."""
        self.process.send_signal(signal.SIGINT)

    def exit_status(self, timeout: float = 30) -> int:
        """Wait for the program to end and for everything it wrote; its exit status."""
        status = self.process.wait(timeout=timeout)
        self._reader.join(timeout=timeout)
        return status

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._reader.join(timeout=5)
        os.close(self._terminal)

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._terminal, 4096)
            except OSError:  # EIO: every copy of the program's side is closed
                chunk = b""
            with self._changed:
                self._shown += _ANSI.sub("", chunk.decode(errors="replace"))
                self._changed.notify_all()
            if not chunk:
                return


@contextmanager
def on_a_terminal(args: Sequence[str], env: Mapping[str, str]) -> Iterator[TerminalProgram]:
    """``args`` running on a pseudo-terminal; killed at the end if it is still running."""
    program = TerminalProgram(args, env)
    try:
        yield program
    finally:
        program.close()


def _default_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
