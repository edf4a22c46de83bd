"""Request ids: accepted from ``X-Request-ID`` when they look like one, else made here."""

from __future__ import annotations

import re
import uuid

__all__ = ["REQUEST_ID_HEADER", "request_id"]

REQUEST_ID_HEADER = "X-Request-ID"

_VALID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")
"""What a proxy's or client's id may look like: bounded, printable, nothing a log parser or a
header could trip on. Anything else is replaced, not echoed."""


def request_id(offered: str | None) -> str:
    """``offered`` when it is a valid id, else a new random one (32 hex digits)."""
    if offered is not None and _VALID.fullmatch(offered):
        return offered
    return uuid.uuid4().hex
