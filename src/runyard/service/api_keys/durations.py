"""Lifetimes written the way people say them: ``90m``, ``12h``, ``30d``, ``8w``."""

from __future__ import annotations

import re
from datetime import timedelta

__all__ = ["MAX_DURATION", "InvalidDuration", "parse_duration"]

MAX_DURATION = timedelta(days=36_500)
"""About a century: anything longer is meant as "never", which is said by giving no duration."""

_UNITS = {
    "m": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
}
_DURATION = re.compile(r"([0-9]{1,9})([mhdw])")


class InvalidDuration(ValueError):
    """The text is not a duration ``parse_duration`` reads; the message says what would be."""


def parse_duration(text: str) -> timedelta:
    """``text`` — a whole number and a unit, m (minutes), h (hours), d (days) or w (weeks) — as
    a ``timedelta`` longer than zero and at most ``MAX_DURATION``."""
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        raise InvalidDuration(
            f"{text!r} is not a duration: give a whole number and a unit, "
            "m (minutes), h (hours), d (days) or w (weeks), e.g. 90m, 12h, 30d"
        )
    amount, unit = int(match[1]), _UNITS[match[2]]
    if amount > MAX_DURATION / unit:  # compared before multiplying: 999999999w overflows
        raise InvalidDuration(f"{text!r} is longer than {MAX_DURATION.days} days")
    if amount == 0:
        raise InvalidDuration(f"{text!r} is no time at all: give a duration longer than 0")
    return amount * unit
