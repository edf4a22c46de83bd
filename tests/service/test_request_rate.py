"""``RequestRate``: a sliding minute per (tenant, agent), on a clock the test moves."""

from __future__ import annotations

import pytest

from runyard.service import RateLimited, RequestRate


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_window_slides_and_retry_after_says_when_the_oldest_leaves_it() -> None:
    clock = Clock()
    rate = RequestRate(clock)
    rate.admit("acme", "support", 2)
    clock.now += 20
    rate.admit("acme", "support", 2)
    clock.now += 10

    with pytest.raises(RateLimited) as refused:
        rate.admit("acme", "support", 2)
    assert refused.value.retry_after == 30  # the first request leaves the window at 1060
    assert refused.value.headers() == {"Retry-After": "30"}

    clock.now += 30
    rate.admit("acme", "support", 2)  # the first one left; the refused one was never counted
    with pytest.raises(RateLimited):
        rate.admit("acme", "support", 2)


def test_each_tenant_and_agent_has_its_own_window_and_no_limit_counts_nothing() -> None:
    rate = RequestRate(Clock())
    rate.admit("acme", "support", 1)
    rate.admit("globex", "support", 1)
    rate.admit("acme", "billing", 1)
    for _ in range(100):
        rate.admit("acme", "free", None)
    with pytest.raises(RateLimited, match="agent 'support' takes 1 requests per minute"):
        rate.admit("acme", "support", 1)


def test_retry_after_is_at_least_one_second() -> None:
    clock = Clock()
    rate = RequestRate(clock)
    rate.admit("acme", "support", 1)
    clock.now += 59.9
    with pytest.raises(RateLimited) as refused:
        rate.admit("acme", "support", 1)
    assert refused.value.retry_after == 1
