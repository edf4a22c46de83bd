"""Reading one message at the ``you`` prompt, over as many lines as it takes.

Two ways to send more than one line:

- a line that ends in a backslash goes on on the next line (the backslash is dropped);
- on a terminal, lines pasted together are one message: a line ends the message only when no
  further complete line is already waiting to be read.
"""

from __future__ import annotations

import select
import sys
from collections.abc import Callable

from rich.console import Console

__all__ = ["MessageReader", "line_waiting"]

_CONTINUES = "\\"


def line_waiting() -> bool:
    """Whether stdin is a terminal on which a whole line was typed or pasted and not yet read."""
    if not sys.stdin.isatty():
        return False
    try:
        # A terminal in line mode reports itself readable only once a whole line is in.
        readable, _, _ = select.select([sys.stdin], [], [], 0)
    except (OSError, ValueError):  # Windows can select on sockets only
        return False
    return bool(readable)


class MessageReader:
    """Prompts ``you:`` and reads one message; end of input and Ctrl-C pass through."""

    def __init__(self, console: Console, *, waiting: Callable[[], bool] = line_waiting) -> None:
        self._console = console
        self._waiting = waiting

    def read(self) -> str:
        """The next message, its lines joined with newlines."""
        lines = [self._console.input("[bold green]you[/]: ")]
        while True:
            if lines[-1].endswith(_CONTINUES):
                lines[-1] = lines[-1].removesuffix(_CONTINUES)
                lines.append(self._console.input("[dim]...[/] "))
            elif self._waiting():
                # Pasted: the terminal has shown the line already, a prompt would only clutter it.
                lines.append(self._console.input())
            else:
                return "\n".join(lines)
