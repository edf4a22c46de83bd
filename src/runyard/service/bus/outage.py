"""``OutageLog``: how the Redis bus reports that Redis is unreachable without flooding the log.

One warning when the trouble starts, then at most one summary every ``every`` seconds while it
lasts (how long, how many failed attempts), and one line when Redis answers again — never one per
event or per reconnect attempt, however busy the server or however long the outage.
"""

from __future__ import annotations

import logging
import time

__all__ = ["OutageLog"]


class OutageLog:
    """Rate-limited reports of one kind of Redis failure: ``trouble`` (what fails), its
    ``consequence`` meanwhile, and what ``recovery`` brings back."""

    def __init__(
        self,
        logger: logging.Logger,
        trouble: str,
        consequence: str,
        recovery: str,
        *,
        every: float = 60.0,
    ) -> None:
        self._logger = logger
        self._trouble, self._consequence, self._recovery = trouble, consequence, recovery
        self._every = every
        self._since: float | None = None  # when the outage began (monotonic)
        self._reported = 0.0  # when it was last reported
        self._failures = 0  # since the last report

    def failed(self, error: BaseException) -> None:
        """Another failed attempt: reported if it is the first, or if ``every`` has passed."""
        now = time.monotonic()
        if self._since is None:
            self._since = self._reported = now
            self._failures = 0
            self._logger.warning(
                "Redis event bus %s (%s): %s", self._trouble, error, self._consequence
            )
            return
        self._failures += 1
        if now - self._reported >= self._every:
            self._logger.warning(
                "Redis event bus still %s after %.0fs (%d failed attempts since the last "
                "report): %s",
                self._trouble,
                now - self._since,
                self._failures,
                error,
            )
            self._reported, self._failures = now, 0

    def recovered(self) -> None:
        """An attempt succeeded: says so once if an outage was reported."""
        if self._since is None:
            return
        self._logger.warning(
            "Redis event bus: Redis answers again after %.1fs: %s",
            time.monotonic() - self._since,
            self._recovery,
        )
        self._since = None
