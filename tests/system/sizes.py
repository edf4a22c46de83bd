"""How big each scenario runs: a CI size in ``make test``, the full size in ``make test-system``
(which sets ``RUNYARD_SYSTEM=1``)."""

from __future__ import annotations

import os

FULL = os.environ.get("RUNYARD_SYSTEM") == "1"


def scale(ci: int, full: int) -> int:
    """A scenario's size: ``ci`` in ``make test``, ``full`` in ``make test-system``."""
    return full if FULL else ci
