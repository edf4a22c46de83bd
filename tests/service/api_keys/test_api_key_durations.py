"""``parse_duration``: ``--expires`` values such as ``90m``, ``12h``, ``30d``, ``8w``."""

from __future__ import annotations

from datetime import timedelta

import pytest

from runyard.service.api_keys import MAX_DURATION, InvalidDuration, parse_duration


@pytest.mark.parametrize(
    ("text", "duration"),
    [
        ("90m", timedelta(minutes=90)),
        ("12h", timedelta(hours=12)),
        ("30d", timedelta(days=30)),
        ("8w", timedelta(weeks=8)),
        (" 1d ", timedelta(days=1)),
        ("36500d", MAX_DURATION),
    ],
)
def test_a_number_and_a_unit_is_a_duration(text: str, duration: timedelta) -> None:
    assert parse_duration(text) == duration


@pytest.mark.parametrize(
    "text", ["", "30", "d", "30x", "30D", "1.5d", "-1d", "+1d", "30 d", "1d12h", "1y", "P30D"]
)
def test_other_text_is_refused_with_the_units_named(text: str) -> None:
    with pytest.raises(InvalidDuration, match=r"is not a duration: .*m \(minutes\), h \(hours\)"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["0m", "0d", "000w"])
def test_zero_is_refused(text: str) -> None:
    with pytest.raises(InvalidDuration, match="no time at all"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["36501d", "5215w", "999999999w", "52560001m"])
def test_more_than_a_century_is_refused_without_overflowing(text: str) -> None:
    with pytest.raises(InvalidDuration, match="longer than 36500 days"):
        parse_duration(text)
