"""Rate counters of the in-memory store."""

from __future__ import annotations

from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import RateCounters
from runyard.storage.rate_window import bucket_of, first_bucket, ms_until_free, swept_before

__all__ = ["RateCountersPart"]


class RateCountersPart(MemoryState, RateCounters):
    """Hits per (key, second)."""

    async def take_rate_slot(
        self, key: str, *, limit: int, window_seconds: int, now: int
    ) -> int | None:
        buckets = self._rate_counters.setdefault(key, {})
        oldest = first_bucket(now, window_seconds)
        window = [(second, hits) for second, hits in buckets.items() if second >= oldest]
        if sum(hits for _, hits in window) < limit:
            second = bucket_of(now)
            buckets[second] = buckets.get(second, 0) + 1
            return None
        return ms_until_free(window, limit=limit, window_seconds=window_seconds, now=now)

    async def return_rate_slot(self, key: str, *, taken_at: int) -> None:
        buckets = self._rate_counters.get(key, {})
        second = bucket_of(taken_at)
        if buckets.get(second, 0) > 0:
            buckets[second] -= 1

    async def sweep_rate_counters(self, before: int) -> int:
        below, swept = swept_before(before), 0
        for key, buckets in list(self._rate_counters.items()):
            old = [second for second in buckets if second < below]
            for second in old:
                del buckets[second]
            swept += len(old)
            if not buckets:
                del self._rate_counters[key]
        return swept
