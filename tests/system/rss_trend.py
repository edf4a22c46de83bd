"""Whether a replica's memory is flat: the trend of its RSS over the judged window.

The statistic is the Theil-Sen slope (the median of the slopes between every pair of samples)
times the window's length, over the median RSS: the share by which the RSS grew across the
window. It uses every sample, yet up to 29% of them may be spikes — a burst of runs, a
garbage collection — without moving it, where a least-squares slope follows a single spike and
a first-vs-last comparison sees only the two ends.

Only samples of one process are compared: a replica killed and restarted starts a new *life*,
judged apart from the one before, and only if it covers most of the window.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

FLAT = 0.05
"""The issue's bound: RSS may grow by at most 5% across the judged window."""
HOUR = 3600.0
COVER = 0.9
"""A life is judged when its samples span this share of the window; a shorter one (a replica
restarted late in the soak) is shown, not judged: its warm-up would pass for a trend."""


def window(seconds: float) -> float:
    """Seconds judged at the end of a soak: the last hour of one of two hours or more (the
    issue's measure), else the last half."""
    return HOUR if seconds >= 2 * HOUR else seconds / 2


def growth(samples: list[tuple[float, float]]) -> float:
    """The Theil-Sen trend of ``(t, rss)`` samples across their span, as a share of their
    median RSS (0.05 = grew 5%)."""
    slopes = [(b - a) / (u - t) for (t, a), (u, b) in combinations(samples, 2) if u > t]
    if not slopes:
        return 0.0
    span = samples[-1][0] - samples[0][0]
    return statistics.median(slopes) * span / statistics.median(r for _, r in samples)


@dataclass(frozen=True)
class Life:
    """One process of one replica, and its RSS samples in the judged window."""

    replica: int
    start: int
    samples: list[tuple[float, float]]

    def judged(self, length: float) -> bool:
        span = self.samples[-1][0] - self.samples[0][0] if self.samples else 0.0
        return len(self.samples) >= 5 and span >= COVER * length

    def figures(self, length: float) -> dict[str, Any]:
        rss = [r for _, r in self.samples]
        return {
            "replica": self.replica,
            "start": self.start,
            "samples": len(rss),
            "from_t": self.samples[0][0] if rss else None,
            "rss_mb_median": round(statistics.median(rss), 1) if rss else None,
            "growth": round(growth(self.samples), 4),
            "judged": self.judged(length),
        }


def lives(series: Iterable[dict[str, float]], since: float) -> list[Life]:
    """The samples at or after ``since``, by replica and process start, in time order."""
    grouped: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for point in series:
        if point["t"] >= since:
            key = (int(point["replica"]), int(point["start"]))
            grouped.setdefault(key, []).append((point["t"], point["rss_mb"]))
    return [Life(r, s, sorted(samples)) for (r, s), samples in sorted(grouped.items())]
