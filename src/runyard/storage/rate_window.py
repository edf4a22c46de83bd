"""The arithmetic of ``RateCounters`` that every backend shares: buckets and when a slot frees."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["bucket_of", "first_bucket", "ms_until_free", "swept_before"]


def bucket_of(now: int) -> int:
    """The one-second bucket (epoch second) of ``now`` (epoch ms)."""
    return now // 1000


def first_bucket(now: int, window_seconds: int) -> int:
    """The oldest bucket still inside the window that ends at ``now``."""
    return bucket_of(now) - window_seconds + 1


def swept_before(before: int) -> int:
    """Buckets below this one ended at or before ``before`` (epoch ms)."""
    return before // 1000


def ms_until_free(
    buckets: Iterable[tuple[int, int]], *, limit: int, window_seconds: int, now: int
) -> int:
    """How long until the window holds fewer than ``limit`` requests, given its ``(bucket,
    hits)``: the oldest buckets leave it one by one, each ``window_seconds`` after it began."""
    ordered = sorted(buckets)
    remaining = sum(hits for _, hits in ordered)
    leaves_at = now
    for second, hits in ordered:
        if remaining < limit:
            break
        remaining -= hits
        leaves_at = (second + window_seconds) * 1000
    return max(leaves_at - now, 1)
