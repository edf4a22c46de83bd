"""``RequestRate``: the ``requests_per_minute`` of a catalog agent, per tenant, in this process.

A sliding window of the last 60 seconds per (tenant, agent): a new run is admitted while fewer
than the limit were admitted in the window, and refused with ``RateLimited`` (and the seconds
until the oldest leaves the window) otherwise. Only new runs count: answering a confirmation
carries a run on and is never refused, so a run waiting for an approval can always finish.

The window lives in this process: each replica counts its own requests, so N replicas behind a
load balancer admit up to N times the limit until the count moves to the shared store.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable

from runyard.service.errors import RateLimited

__all__ = ["WINDOW_SECONDS", "RequestRate"]

WINDOW_SECONDS = 60.0


class RequestRate:
    """Admits or refuses new runs per (tenant, agent); ``clock`` is monotonic seconds."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._admitted: dict[tuple[str, str], deque[float]] = {}

    def admit(self, tenant: str, agent_id: str, limit: int | None) -> None:
        """Count one new run of ``agent_id`` for ``tenant``; ``RateLimited`` when the last
        minute already holds ``limit`` of them (None: no limit, nothing is counted)."""
        if limit is None:
            return
        now = self._clock()
        key = (tenant, agent_id)
        window = self._admitted.setdefault(key, deque())
        while window and window[0] <= now - WINDOW_SECONDS:
            window.popleft()
        if len(window) >= limit:
            retry_after = max(math.ceil(window[0] + WINDOW_SECONDS - now), 1)
            raise RateLimited(agent_id, limit, retry_after)
        window.append(now)
