"""``collect_young_less_often``: the server's garbage collector tuned for many live streams.

CPython collects its youngest generation after every 700 net allocations, and every tenth of
those collections scans the middle generation and every tenth of those (when enough objects
survived) the whole heap. A server with a thousand runs streaming allocates a few objects per
event and keeps hundreds of thousands alive (imported modules, the app, every run's state), and
almost nothing it allocates is cyclic garbage: in ``benchmarks/sse_latency.py`` at 1,000 streams
the collector took 3.8 of the server's 24 CPU seconds (1,500 young collections, 11 full ones
of ~240 ms each, each a pause every stream waits out) and freed some 6,500 objects. Collecting
the youngest generation after 10,000 allocations cut that to 0.5 s with no full collection
(docs/http.md, "Per-request and per-frame costs"); reference counting still frees at once
everything that is not in a cycle.
"""

from __future__ import annotations

import gc

__all__ = ["YOUNG_THRESHOLD", "collect_young_less_often"]

YOUNG_THRESHOLD = 10_000
"""Net allocations between collections of the youngest generation (CPython's default: 700)."""


def collect_young_less_often() -> None:
    """Raise the youngest generation's threshold to ``YOUNG_THRESHOLD`` for this process.

    It only ever raises it: a process that set a higher one (or turned the collector off)
    keeps its choice. The older generations keep their thresholds.
    """
    young, middle, old = gc.get_threshold()
    if 0 < young < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, middle, old)
