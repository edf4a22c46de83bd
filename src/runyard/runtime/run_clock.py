"""``RunClock``: how long a run has executed, and its ``timeout_s`` for the whole run.

"The whole run" is the time its segments execute: a fresh run, then each resume. The time a run
waits suspended (for an approval, say) is not counted, so a question answered the next day does
not time the run out; the checkpoint keeps what earlier segments spent (``run_seconds``).
"""

from __future__ import annotations

import asyncio
from types import TracebackType

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

    def running(self) -> _Segment:
        """Run one segment; ``RunTimeoutError`` once the run's whole time is used up."""
        return _Segment(self)


class _Segment:
    """One segment's time on its clock. A plain class, not a generator-based context manager:
    that one's frames cost measurably on every run."""

    __slots__ = ("_clock", "_deadline")

    def __init__(self, clock: RunClock) -> None:
        self._clock = clock
        self._deadline: asyncio.Timeout | None = None

    async def __aenter__(self) -> None:
        clock = self._clock
        clock._since = asyncio.get_running_loop().time()
        if clock.timeout_s is not None:
            self._deadline = asyncio.timeout(max(clock.timeout_s - clock._spent, 0.0))
            await self._deadline.__aenter__()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        clock, deadline = self._clock, self._deadline
        try:
            if deadline is not None:
                await deadline.__aexit__(kind, exc, traceback)
        except TimeoutError as timed_out:
            if deadline is None or not deadline.expired() or clock.timeout_s is None:
                raise  # a TimeoutError of the run's own work, not of its limit
            raise RunTimeoutError(clock.timeout_s) from timed_out
        finally:
            clock._spent, clock._since = clock.spent, None
