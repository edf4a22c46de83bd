"""Identifiers and wall-clock milliseconds: the two things every layer stamps on its records."""

from __future__ import annotations

import time
import uuid

__all__ = ["new_id", "now_ms"]


def new_id(prefix: str) -> str:
    """A fresh, globally unique id such as ``run_3f2a…``; the prefix says what it names."""
    return f"{prefix}_{uuid.uuid4().hex}"


def now_ms() -> int:
    """Wall-clock time in integer milliseconds since the epoch."""
    return time.time_ns() // 1_000_000
