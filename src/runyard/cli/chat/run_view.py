"""One run on screen: events fold into the agent tree, shown live while the run streams.

The live display is transient, and the finished tree is printed once at the end, so a terminal
sees text stream in place while a pipe or a log gets exactly one copy of the answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from rich.console import Console
from rich.live import Live
from rich.text import Text

from runyard.cli.chat.tree_view import render_tree
from runyard.protocol import AgentTreeBuilder, WireEvent

__all__ = ["RunView"]

# Redrawing the whole tree for every text delta would cost more than the model produces.
_REFRESH_SECONDS = 0.05


class RunView:
    """Use as a context manager around one run; ``apply`` each event of that run."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._builder = AgentTreeBuilder()
        self._live = _live(console)
        self._drawn_at = 0.0

    def __enter__(self) -> RunView:
        self._live.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._live.stop()
        self._console.print(render_tree(self._builder.tree()))

    def apply(self, event: WireEvent, event_id: int | None = None) -> None:
        """Fold one event (with its log id, so a ``run-resumed`` drops the partial output of a
        server that died) into the tree and redraw (at most every few frames)."""
        self._builder.apply(event, event_id)
        now = time.monotonic()
        if now - self._drawn_at >= _REFRESH_SECONDS or event.type == "confirmation-request":
            self._draw()

    def note(self, message: str) -> None:
        """A line about the connection or the run, printed above the live tree."""
        self._console.print(Text(message, style="dim"))

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Hide the live tree while the terminal asks the user something.

        The question and its answer stay on screen as they were typed, and the tree goes on below
        them in a new live display: a restarted one still counts the lines it drew before the
        pause as its own, and would move up over the question and overwrite it.
        """
        self._live.stop()
        try:
            yield
        finally:
            self._live = _live(self._console)
            self._live.start()
            self._draw()

    def _draw(self) -> None:
        self._drawn_at = time.monotonic()
        self._live.update(render_tree(self._builder.tree()), refresh=True)


def _live(console: Console) -> Live:
    return Live(console=console, transient=True, auto_refresh=False)
