"""Redis trouble is reported once when it starts, in a summary at most every ``every`` seconds
while it lasts, and once when it ends — never once per failed attempt."""

from __future__ import annotations

import logging

import pytest

from runyard.service.bus.outage import OutageLog

LOGGER = logging.getLogger("test.outage")


def outage(every: float) -> OutageLog:
    return OutageLog(LOGGER, "cannot connect", "streams poll", "live again", every=every)


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER.name]


def test_a_thousand_failures_make_one_warning_and_the_recovery_one_more(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = outage(every=3600)
    with caplog.at_level(logging.WARNING, LOGGER.name):
        for _ in range(1000):
            log.failed(ConnectionError("refused"))
        log.recovered()
        log.recovered()  # nothing more to say

    first, back = messages(caplog)
    assert first == "Redis event bus cannot connect (refused): streams poll"
    assert back.startswith("Redis event bus: Redis answers again after ")
    assert back.endswith(": live again")


def test_a_long_outage_is_summed_up_once_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    log = outage(every=0)  # every failure after the first is "an interval later"
    with caplog.at_level(logging.WARNING, LOGGER.name):
        log.failed(ConnectionError("refused"))
        log.failed(ConnectionError("refused"))

    assert len(messages(caplog)) == 2
    assert "still cannot connect after" in messages(caplog)[1]
    assert "(1 failed attempts since the last report)" in messages(caplog)[1]


def test_nothing_is_said_without_trouble(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, LOGGER.name):
        outage(every=60).recovered()

    assert messages(caplog) == []


def test_a_new_outage_after_a_recovery_is_reported_again(caplog: pytest.LogCaptureFixture) -> None:
    log = outage(every=3600)
    with caplog.at_level(logging.WARNING, LOGGER.name):
        log.failed(ConnectionError("refused"))
        log.recovered()
        log.failed(ConnectionError("reset"))

    assert messages(caplog)[2] == "Redis event bus cannot connect (reset): streams poll"
