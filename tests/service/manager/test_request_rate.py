"""``RequestRate``: a sliding minute per tenant and per (tenant, agent), counted in the store, on
a clock the test moves; a refusal by one limit leaves nothing counted by the other."""

from __future__ import annotations

import pytest

from runyard.service import AgentLimits, RateLimited, RequestRate, TenantLimits
from runyard.storage.inmemory import RateCountersPart


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


NO_TENANT_LIMIT = TenantLimits()


def per_minute(n: int | None) -> AgentLimits:
    return AgentLimits(requests_per_minute=n)


async def test_the_window_slides_and_retry_after_says_when_the_oldest_leaves_it() -> None:
    clock = Clock()
    rate = RequestRate(RateCountersPart(), clock)
    await rate.admit("acme", "support", per_minute(2), NO_TENANT_LIMIT)
    clock.now += 20_000
    await rate.admit("acme", "support", per_minute(2), NO_TENANT_LIMIT)
    clock.now += 10_000

    with pytest.raises(RateLimited) as refused:
        await rate.admit("acme", "support", per_minute(2), NO_TENANT_LIMIT)
    assert refused.value.retry_after == 30  # the first request leaves the window 60 s after it
    assert refused.value.headers() == {"Retry-After": "30"}

    clock.now += 30_000
    await rate.admit("acme", "support", per_minute(2), NO_TENANT_LIMIT)  # the refused one
    with pytest.raises(RateLimited):  # was never counted
        await rate.admit("acme", "support", per_minute(2), NO_TENANT_LIMIT)


async def test_each_tenant_and_agent_has_its_own_window_and_no_limit_counts_nothing() -> None:
    counters = RateCountersPart()
    rate = RequestRate(counters, Clock())
    await rate.admit("acme", "support", per_minute(1), NO_TENANT_LIMIT)
    await rate.admit("globex", "support", per_minute(1), NO_TENANT_LIMIT)
    await rate.admit("acme", "billing", per_minute(1), NO_TENANT_LIMIT)
    for _ in range(100):
        await rate.admit("acme", "free", per_minute(None), NO_TENANT_LIMIT)
    with pytest.raises(RateLimited, match="agent 'support' takes 1 requests per minute"):
        await rate.admit("acme", "support", per_minute(1), NO_TENANT_LIMIT)
    assert await rate.sweep() == 0  # everything is still inside the window


async def test_the_tenant_limit_spans_its_agents_and_a_refusal_by_it_counts_for_no_agent() -> None:
    clock = Clock()
    rate = RequestRate(RateCountersPart(), clock)
    tenant = TenantLimits(requests_per_minute=2)
    await rate.admit("acme", "support", per_minute(2), tenant)
    await rate.admit("acme", "billing", per_minute(None), tenant)
    with pytest.raises(RateLimited) as refused:
        await rate.admit("acme", "support", per_minute(2), tenant)
    assert (refused.value.agent_id, refused.value.limit) == (None, 2)
    assert refused.value.details()["limit"] == "tenant_requests_per_minute"

    await rate.admit("globex", "support", per_minute(2), tenant)  # another tenant
    clock.now += 60_000
    await rate.admit("acme", "support", per_minute(2), tenant)
    # Had the refusal above kept support's slot, support would be full now.
    await rate.admit("acme", "support", per_minute(2), tenant)


async def test_a_given_back_admission_frees_its_slots() -> None:
    rate = RequestRate(RateCountersPart(), Clock())
    tenant = TenantLimits(requests_per_minute=1)
    admission = await rate.admit("acme", "support", per_minute(1), tenant)
    await admission.give_back()
    await rate.admit("acme", "support", per_minute(1), tenant)


async def test_retry_after_is_at_least_one_second() -> None:
    clock = Clock()
    rate = RequestRate(RateCountersPart(), clock)
    await rate.admit("acme", "support", per_minute(1), NO_TENANT_LIMIT)
    clock.now += 59_900
    with pytest.raises(RateLimited) as refused:
        await rate.admit("acme", "support", per_minute(1), NO_TENANT_LIMIT)
    assert refused.value.retry_after == 1
