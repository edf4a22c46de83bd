"""Where a runyard run spends its time: cProfile's own-time per function, summed by package.

cProfile slows everything down, pure-Python code most, so read the shares as a map of where
the time goes, not as a measurement of it.
"""

from __future__ import annotations

import cProfile
import pstats
import re
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Profile", "profile_runs"]

# The first marker a function's file path contains names its package; order matters.
_PACKAGES = (
    ("/runyard/", "runyard"),
    ("/benchmarks/", "fake model and tool"),
    ("/pydantic_ai/", "pydantic-ai model layer"),
    ("/pydantic_core/", "pydantic"),
    ("/pydantic/", "pydantic"),
    ("/anyio/", "anyio"),
    ("/asyncio/", "asyncio event loop"),
)


@dataclass(frozen=True)
class Profile:
    """Own-time shares by package and runyard's busiest functions, of ``runs`` profiled runs."""

    runs: int
    shares: list[tuple[str, float]]
    top: list[tuple[str, float]]


def _package(filename: str) -> str:
    if filename.startswith(("~", "<")):
        return "built-ins"
    return next((name for marker, name in _PACKAGES if marker in filename), "stdlib")


def _label(filename: str, line: int, function: str) -> str:
    if filename.startswith("~"):
        return function
    return f"{_SHORT_PATH.sub('', filename)}:{line} {function}"


_SHORT_PATH = re.compile(r".*/(site-packages|src|lib/python3\.\d+)/")
_HELPERS = ("built-ins", "stdlib")
_PASSES = 6  # levels of helpers (e.g. isinstance inside dataclasses.replace) to see through

Func = tuple[str, int, str]


def _charged(stats: dict[Func, Any]) -> dict[Func, float]:
    """Own time per function, with the time of built-ins and stdlib helpers charged to callers.

    Without this, ``dataclasses.replace`` or ``isinstance`` shows up as a package of its own,
    when the question is which package's code asked for it.
    """
    own: dict[Func, float] = {func: row[2] for func, row in stats.items()}
    for _ in range(_PASSES):
        for func, (_, _, _, _, callers) in stats.items():
            spent = own[func]
            if not (spent and callers and _package(func[0]) in _HELPERS):
                continue
            weights = {caller: edge[3] for caller, edge in callers.items()}
            total = sum(weights.values()) or 1.0
            own[func] = 0.0
            for caller, weight in weights.items():
                own[caller] = own.get(caller, 0.0) + spent * weight / total
    return own


async def profile_runs(run: Callable[[], Awaitable[object]], runs: int, *, top: int) -> Profile:
    """Profile ``runs`` calls of ``run`` (already warm); shares by package, runyard's busiest."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(runs):
        await run()
    profiler.disable()
    own = _charged(pstats.Stats(profiler).stats)  # type: ignore[attr-defined]
    by_package: defaultdict[str, float] = defaultdict(float)
    ours: defaultdict[str, float] = defaultdict(float)
    for (filename, line, function), spent in own.items():
        package = _package(filename)
        by_package[package] += spent
        if package == "runyard":
            ours[_label(filename, line, function)] += spent
    total = sum(by_package.values()) or 1.0
    shares = [(name, spent / total) for name, spent in _largest(by_package)]
    busiest = [(name, spent / total) for name, spent in _largest(ours)[:top]]
    return Profile(runs, shares, busiest)


def _largest(spent: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(spent.items(), key=lambda item: item[1], reverse=True)
