"""Identifiers and wall-clock milliseconds: the two things every layer stamps on its records.

Also the rule for the ids clients choose (thread ids) or send back (confirmation request ids),
and the one for tenant and user ids: defined once here, checked by the HTTP routes (and shown in
the OpenAPI document), by the service and by the CLI, the same whatever the backend.
"""

from __future__ import annotations

import os
import re
import time

__all__ = [
    "FILE_ID_PATTERN",
    "IDENTITY_PATTERN",
    "REQUEST_ID_PATTERN",
    "THREAD_ID_PATTERN",
    "is_identity",
    "is_thread_id",
    "new_id",
    "now_ms",
]

THREAD_ID_PATTERN = r"^[A-Za-z0-9._:@-]{1,128}$"
"""A thread id: 1 to 128 of ``A-Z a-z 0-9 . _ : @ -`` — no ``/``, no spaces, ASCII only."""

REQUEST_ID_PATTERN = THREAD_ID_PATTERN
"""A confirmation request id follows the same rule (runyard makes them as ``cr_<32 hex>``)."""

FILE_ID_PATTERN = r"^file_[0-9a-f]{32}$"
"""A stored file's id, as the file store makes them (``new_id("file")``)."""

IDENTITY_PATTERN = r"^[A-Za-z0-9._@-]{1,128}$"
"""A tenant or user id: 1 to 128 of ``A-Z a-z 0-9 . _ @ -`` — no ``/`` (thread keys are
``tenant/user/thread``), no ``:``, no spaces, ASCII only."""

_THREAD_ID = re.compile(THREAD_ID_PATTERN)
_IDENTITY = re.compile(IDENTITY_PATTERN)


def is_thread_id(value: str) -> bool:
    """True when ``value`` fits ``THREAD_ID_PATTERN`` (the whole string, no trailing newline)."""
    return _THREAD_ID.fullmatch(value) is not None


def is_identity(value: str) -> bool:
    """True when ``value`` fits ``IDENTITY_PATTERN`` (the whole string, no trailing newline)."""
    return _IDENTITY.fullmatch(value) is not None


def new_id(prefix: str) -> str:
    """A fresh, globally unique id such as ``run_3f2a…``; the prefix says what it names.

    128 random bits, as a version-4 UUID has, without the UUID object's cost (ids are made on
    every message and run).
    """
    return f"{prefix}_{os.urandom(16).hex()}"


def now_ms() -> int:
    """Wall-clock time in integer milliseconds since the epoch."""
    return time.time_ns() // 1_000_000
