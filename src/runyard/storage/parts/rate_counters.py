"""``RateCounters``: requests per key in a sliding window, counted where every replica sees them.

A key is whatever the caller limits (``tenant/agent``, a tenant): the store knows no tenants.
Requests are counted in one-second buckets, and the window is the buckets of its last
``window_seconds`` seconds, so the count is exact to the second: unlike two fixed-window
buckets weighted by the time elapsed, no burst at a window's edge slips through, and the
``Retry-After`` of a refusal is when a slot really frees. The price is up to ``window_seconds``
rows per busy key, summed by one indexed range read — cheap for the minute windows runyard uses.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

__all__ = ["RateCounters"]


@runtime_checkable
class RateCounters(Protocol):
    """Take, return and sweep slots of sliding request windows; ``now`` is epoch ms."""

    async def take_rate_slot(
        self, key: str, *, limit: int, window_seconds: int, now: int
    ) -> int | None:
        """Count one request of ``key`` at ``now`` if the window ending then holds fewer than
        ``limit`` (≥ 1); None when it was counted. Otherwise nothing stays counted and the answer
        is how many ms until the window holds fewer (at least 1).

        Admitted requests are one statement: an increment that returns the new count with the
        window's earlier buckets. Racing requests of a key are counted in turn by the database,
        so at most ``limit`` are admitted per window, whichever replica they reach. A refusal
        takes one more statement to return its count and read when a slot frees."""
        ...

    async def return_rate_slot(self, key: str, *, taken_at: int) -> None:
        """Uncount one request that ``take_rate_slot`` counted at ``taken_at`` (the request was
        refused for another reason after all)."""
        ...

    async def sweep_rate_counters(self, before: int) -> int:
        """Delete the buckets of seconds that ended at or before ``before`` (epoch ms); how many.
        Callers pass ``now`` minus their longest window: nothing in a window is swept."""
        ...
