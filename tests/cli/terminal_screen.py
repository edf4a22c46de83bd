"""What a terminal would show after some output: just enough VT100 for rich's live display.

rich's ``Live`` redraws by moving the cursor up (``ESC[nA``) and erasing lines (``ESC[2K``); a
test that only reads the raw text cannot see a line overwritten that way. ``Screen`` replays the
output the way a terminal does, so a test can assert on what the user is left looking at.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"(\x1b\[[0-9;?]*[A-Za-z]|\r|\n)")


class Screen:
    """The lines of an endless terminal (no scrolling out of view) after ``feed``."""

    def __init__(self) -> None:
        self.lines: list[str] = [""]
        self._row = 0
        self._col = 0

    def feed(self, output: str) -> Screen:
        for token in _TOKEN.split(output):
            if token:
                self._apply(token)
        return self

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.lines).strip("\n")

    def _apply(self, token: str) -> None:
        if token == "\r":
            self._col = 0
        elif token == "\n":
            self._row += 1
            self._col = 0
            if self._row == len(self.lines):
                self.lines.append("")
        elif token.startswith("\x1b["):
            self._control(token[2:-1], token[-1])
        else:
            line = self.lines[self._row].ljust(self._col)
            self.lines[self._row] = line[: self._col] + token + line[self._col + len(token) :]
            self._col += len(token)

    def _control(self, argument: str, command: str) -> None:
        if command == "A":
            self._row = max(0, self._row - int(argument or "1"))
        elif command == "K" and argument == "2":
            self.lines[self._row] = ""
        # Cursor visibility (``?25l``/``?25h``) and colours (``m``) change nothing on screen.
