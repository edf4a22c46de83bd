"""The harness's machine-readable result: one entry per scenario, with its figures and outcome.

Scenarios add figures while they run (``Results.scenario(name)``); the conftest notes each test's
outcome and, when ``RUNYARD_SYSTEM_RESULTS`` names a file, writes it all there as JSON at the end
of the session. ``report.py`` turns that file into docs/reliability.md.
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile of ``values`` (None when there are none)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def timing(values: list[float]) -> dict[str, Any]:
    """Count, p50, p95, p99 and max of a list of seconds, rounded to milliseconds."""

    def ms(value: float | None) -> float | None:
        return None if value is None else round(value, 3)

    return {
        "count": len(values),
        "p50": ms(percentile(values, 0.5)),
        "p95": ms(percentile(values, 0.95)),
        "p99": ms(percentile(values, 0.99)),
        "max": ms(max(values) if values else None),
        "mean": ms(statistics.fmean(values) if values else None),
    }


def title_of(request: Any) -> str:
    """A scenario's title: the first line of its test's docstring (else the test's name)."""
    return str((request.function.__doc__ or request.node.name).strip().splitlines()[0])


@dataclass
class Scenario:
    """One scenario's figures and, once its test ended, its outcome."""

    name: str
    title: str = ""
    figures: dict[str, Any] = field(default_factory=dict)
    outcome: str = "not run"
    reason: str = ""
    seconds: float = 0.0


@dataclass
class Results:
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    started: float = field(default_factory=time.time)

    def scenario(self, name: str, title: str) -> Scenario:
        entry = self.scenarios.setdefault(name, Scenario(name))
        entry.title = title
        return entry

    def write(self, path: Path, scale: str) -> None:
        """Write the file; a scenario this session did not run keeps its entry from before (so
        rerunning one scenario updates its figures and leaves the others')."""
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        kept = json.loads(path.read_text())["scenarios"] if path.exists() else {}
        fresh = {name: {**vars(s), "generated": now} for name, s in self.scenarios.items()}
        document = {
            "generated": now,
            "scale": scale,
            "machine": {"cpus": os.cpu_count() or 0, "python": platform.python_version()},
            "scenarios": dict(sorted({**kept, **fresh}.items())),
        }
        path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
