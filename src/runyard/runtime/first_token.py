"""``FirstToken``: how long a streamed model call took to send its first delta."""

from __future__ import annotations

import time

__all__ = ["FirstToken"]


class FirstToken:
    """Started when made; ``mark`` on every streamed item keeps only the first one's time."""

    __slots__ = ("_started", "seconds")

    def __init__(self) -> None:
        self._started = time.perf_counter()
        self.seconds: float | None = None
        """None until the first delta (and for a call that does not stream)."""

    def mark(self) -> None:
        if self.seconds is None:
            self.seconds = time.perf_counter() - self._started
