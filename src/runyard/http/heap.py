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

Full collections came back as runs kept more state (2026-11-29, 1,000 streams of 60 deltas: the
collector a fifth of the server's streaming CPU, with a full collection of 0.47 s every ~6 s),
so the old generation now waits ten times as long (``OLD_THRESHOLD``).
"""

from __future__ import annotations

import gc

__all__ = ["OLD_THRESHOLD", "YOUNG_THRESHOLD", "tune_collector"]

YOUNG_THRESHOLD = 3000
"""Net allocations between collections of the youngest generation (CPython's default: 700).
Not more: every tenth young collection scans the middle generation, up to ten times this many
objects, in one pause (10,000 held the loop 65 ms in ``benchmarks/loop_stalls.py``)."""

OLD_THRESHOLD = 100
"""Middle-generation collections before a full one is considered (CPython's default: 10; a full
one also waits until what survived to the old generation grew by a quarter). What reaches the
old generation while serving is mostly the live runs' own state, not garbage: at 1,000 streams
of 60 deltas each full collection walked it for 0.47 s, a pause every stream waited out, and
freed ~140 objects (``benchmarks/sse_latency.py``, docs/benchmarks.md). Cycles that outlive two
generations are still collected, a tenth as often."""

_frozen = False


def tune_collector() -> None:
    """Raise the youngest generation's threshold to ``YOUNG_THRESHOLD``, and freeze what is alive
    the first time it is called in the process (an app started again, as tests do, does not
    collect the whole heap again).

    The old generation's threshold is raised to ``OLD_THRESHOLD`` too. Thresholds are only ever
    raised: a process that set a higher one (or turned the collector off) keeps its choice.
    """
    global _frozen
    young, middle, old = gc.get_threshold()
    if young > 0:
        gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, max(old, OLD_THRESHOLD))
    if not _frozen and gc.isenabled():
        _frozen = True
        gc.freeze()
