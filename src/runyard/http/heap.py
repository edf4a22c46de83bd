"""``tune_collector``: the server's garbage collector tuned for many live streams.

CPython collects its youngest generation after every 700 net allocations, and every tenth of
those collections scans the middle generation and, when the heap grew by a quarter, the whole
heap. A server with a thousand runs streaming allocates a few objects per event and keeps
hundreds of thousands alive (imported modules, the app, every run's state), and almost nothing
it allocates is cyclic garbage: in ``benchmarks/sse_latency.py`` at 1,000 streams the collector
took 3.6 to 3.8 of the server's 23 to 25 CPU seconds (1,500 young collections, 11 full ones of
~240 ms each, each a pause every stream waits out) and freed some 6,500 objects.

So, once the app has started: the youngest generation is collected after 3,000 allocations,
and what is alive then (modules, the app, its parts; about 250,000 objects) is frozen
(``gc.freeze``): later collections never scan it again. It is not collected first: at that
point a full collection finds nothing to free and costs 0.2 s of the time to ready. Together they cut the
collector to about 0.8 CPU seconds in that benchmark, with no full collection while streaming
(docs/http.md, "Per-request and per-frame costs"). Reference counting still frees at once
everything that is not in a cycle, and cycles made after the start are still collected.
"""

from __future__ import annotations

import gc

__all__ = ["YOUNG_THRESHOLD", "tune_collector"]

YOUNG_THRESHOLD = 3000
"""Net allocations between collections of the youngest generation (CPython's default: 700).
Not more: every tenth young collection scans the middle generation, up to ten times this many
objects, in one pause (10,000 held the loop 65 ms in ``benchmarks/loop_stalls.py``)."""

_frozen = False


def tune_collector() -> None:
    """Raise the youngest generation's threshold to ``YOUNG_THRESHOLD``, and freeze what is alive
    the first time it is called in the process (an app started again, as tests do, does not
    collect the whole heap again).

    The threshold is only ever raised: a process that set a higher one (or turned the collector
    off) keeps its choice. The older generations keep their thresholds.
    """
    global _frozen
    young, middle, old = gc.get_threshold()
    if 0 < young < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, middle, old)
    if not _frozen and gc.isenabled():
        _frozen = True
        gc.freeze()
