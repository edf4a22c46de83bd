"""``RunClock``: how long a run has executed, and its ``timeout_s`` for the whole run.

"The whole run" is the time its segments execute: a fresh run, then each resume. The time a run
waits suspended (for an approval, say) is not counted, so a question answered the next day does
not time the run out; the checkpoint keeps what earlier segments spent (``run_seconds``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from runyard.errors import RunTimeoutError

__all__ = ["RunClock"]


class RunClock:
    """Counts a run's executing time over its segments; ``running`` holds a segment to the time
    its ``timeout_s`` leaves (None: no limit)."""

    def __init__(self, timeout_s: float | None, spent: float = 0.0) -> None:
        self.timeout_s = timeout_s
        self._spent = spent
        self._since: float | None = None

    @property
    def spent(self) -> float:
        """Seconds executed so far, the segment now running included."""
        if self._since is None:
            return self._spent
        return self._spent + asyncio.get_running_loop().time() - self._since

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run one segment; ``RunTimeoutError`` once the run's whole time is used up."""
        self._since = asyncio.get_running_loop().time()
        try:
            if self.timeout_s is None:
                yield
                return
            deadline = asyncio.timeout(max(self.timeout_s - self._spent, 0.0))
            try:
                async with deadline:
                    yield
            except TimeoutError as exc:
                if not deadline.expired():
                    raise  # a TimeoutError of the run's own work, not of its limit
                raise RunTimeoutError(self.timeout_s) from exc
        finally:
            self._spent, self._since = self.spent, None
