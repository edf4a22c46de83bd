"""The replay cursor of an event stream: ``Last-Event-ID``, else ``?lastEventId``, else 0.

A cursor is ASCII digits for an integer in 0 … 2^63-1 (event ids are signed 64-bit in the
store). One regular expression says so, and it is both what the OpenAPI document shows and what
checks a request: ``str.isdigit()`` and ``int()`` would also take "²" (a ``Last-Event-ID`` byte
0xB2 arrives as that) or "٣", and an id past 2^63 only fails inside the store.
"""

from __future__ import annotations

import re

from pydantic import WithJsonSchema

from runyard.http.errors import ApiError

__all__ = [
    "CURSOR",
    "CURSOR_PATTERN",
    "LAST_EVENT_ID",
    "MAX_CURSOR",
    "QUERY_CURSOR",
    "digits_at_most",
    "replay_cursor",
]

LAST_EVENT_ID = "Last-Event-ID"
QUERY_CURSOR = "lastEventId"
MAX_CURSOR = 2**63 - 1


def digits_at_most(bound: int) -> str:
    """A regular expression (Python and ECMA 262) for the digit strings, leading zeros allowed,
    of at most as many digits as ``bound`` and a value of at most ``bound``."""
    top = str(bound)
    # Same length: equal to the bound up to some digit, then a smaller digit, then anything.
    same_length = [
        f"{top[:i]}[0-{int(digit) - 1}][0-9]{{{len(top) - i - 1}}}"
        for i, digit in enumerate(top)
        if digit != "0"
    ]
    shorter = [f"[0-9]{{1,{len(top) - 1}}}"] if len(top) > 1 else []
    return "^(?:" + "|".join([*shorter, *same_length, top]) + ")$"


CURSOR_PATTERN = digits_at_most(MAX_CURSOR)
_CURSOR = re.compile(CURSOR_PATTERN)

CURSOR = WithJsonSchema(
    {
        "type": "string",
        "pattern": CURSOR_PATTERN,
        "description": "replay the events after this id: ASCII digits, 0 to 2^63-1",
    }
)
"""How a cursor parameter is documented (read as text, checked by ``replay_cursor``)."""


def replay_cursor(last_event_id: str | None, query: str | None) -> int:
    """``Last-Event-ID`` when sent, else ``?lastEventId`` when sent, else 0 (the whole history).

    Each value sent must be a cursor — an empty one is not — else ``invalid_cursor`` (400) names
    it, even when the other one would win: bad input is refused, not ignored.
    """
    cursors = [
        _checked(field, value)
        for field, value in ((LAST_EVENT_ID, last_event_id), (QUERY_CURSOR, query))
        if value is not None
    ]
    return cursors[0] if cursors else 0


def _checked(field: str, value: str) -> int:
    if _CURSOR.fullmatch(value) is None:
        raise ApiError(400, "invalid_cursor", f"{field} must be an integer from 0 to 2^63-1", field)
    return int(value)
