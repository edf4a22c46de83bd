"""Wall and CPU time per run, every variant interleaved in one event loop so noise hits them all alike.

The CPU time is the thread's (``time.thread_time``): what the run itself computed, which the
machine's other work does not inflate the way it inflates wall time when it takes the core away.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

__all__ = ["Timed", "Variant", "interleave"]

Run = Callable[[], Awaitable[object]]


@dataclass(frozen=True)
class Variant:
    """One thing to time: a system in one mode (``generate`` or ``stream``)."""

    system: str
    mode: str
    run: Run


@dataclass(frozen=True)
class Timed:
    """The times of one variant, in milliseconds."""

    system: str
    mode: str
    samples: tuple[float, ...]
    cpu_samples: tuple[float, ...] = ()

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu_samples)

    @property
    def p90(self) -> float:
        return statistics.quantiles(self.samples, n=10, method="inclusive")[-1]


async def interleave(variants: Sequence[Variant], *, warmup: int, iterations: int) -> list[Timed]:
    """Warm every variant up, then time ``iterations`` rounds of one run each.

    The order rotates every round, so no variant always runs right after the same neighbour
    (whose garbage, for instance, the collector may pick up during the next run).
    """
    for _ in range(warmup):
        for variant in variants:
            await variant.run()
    samples: list[list[float]] = [[] for _ in variants]
    cpu: list[list[float]] = [[] for _ in variants]
    clock, cpu_clock = time.perf_counter_ns, time.thread_time_ns
    count = len(variants)
    for round_ in range(iterations):
        for offset in range(count):
            index = (round_ + offset) % count
            started, cpu_started = clock(), cpu_clock()
            await variants[index].run()
            samples[index].append((clock() - started) / 1e6)
            cpu[index].append((cpu_clock() - cpu_started) / 1e6)
    return [
        Timed(v.system, v.mode, tuple(s), tuple(c))
        for v, s, c in zip(variants, samples, cpu, strict=True)
    ]
