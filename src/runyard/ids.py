"""Identifiers and wall-clock milliseconds: the two things every layer stamps on its records."""

from __future__ import annotations

import os
import time

__all__ = ["new_id", "now_ms"]


def new_id(prefix: str) -> str:
    """A fresh, globally unique id such as ``run_3f2a…``; the prefix says what it names.

    128 random bits, as a version-4 UUID has, without the UUID object's cost (ids are made on
    every message and run).
    """
    return f"{prefix}_{os.urandom(16).hex()}"


def now_ms() -> int:
    """Wall-clock time in integer milliseconds since the epoch."""
    return time.time_ns() // 1_000_000
