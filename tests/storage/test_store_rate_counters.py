"""The ``RateCounters`` part: a sliding window of one-second buckets per key, exact to the
second; refused requests are not counted; racing requests — through one store or two on the
same database — are admitted at most ``limit`` times; old buckets are swept."""

from __future__ import annotations

import asyncio

import pytest
from store_parts import assert_implements

from postgres_databases import truncate_all
from runyard.storage import RateCounters, open_store

T0 = 1_800_000_000_000
"""A fixed "now" (epoch ms, on a second's edge): windows are judged by it, never the clock."""


def at(seconds: float) -> int:
    return T0 + int(seconds * 1000)


async def take(store: RateCounters, key: str, when: float, limit: int = 2) -> int | None:
    return await store.take_rate_slot(key, limit=limit, window_seconds=60, now=at(when))


async def test_every_backend_is_a_rate_counters_part(store: RateCounters) -> None:
    assert_implements(store, RateCounters)


async def test_the_window_slides_and_a_refusal_says_when_the_oldest_leaves_it(
    store: RateCounters,
) -> None:
    assert await take(store, "acme/support", 0) is None
    assert await take(store, "acme/support", 20) is None
    assert await take(store, "acme/support", 30) == 30_000  # the first leaves at 60 s
    assert await take(store, "acme/support", 59.5) == 500
    assert await take(store, "acme/support", 60) is None  # the refused ones were not counted
    assert await take(store, "acme/support", 60.2) == 19_800  # the one at 20 s leaves at 80 s


async def test_each_key_has_its_own_window(store: RateCounters) -> None:
    for key in ("acme/support", "globex/support", "acme/billing"):
        assert await take(store, key, 0, limit=1) is None
    assert await take(store, "acme/support", 1, limit=1) == 59_000


async def test_a_busy_second_frees_when_it_leaves_the_window(store: RateCounters) -> None:
    for _ in range(3):
        assert await take(store, "k", 5.1, limit=4) is None
    assert await take(store, "k", 5.9, limit=4) is None
    assert await take(store, "k", 6, limit=4) == 59_000  # the four of second 5 leave at 65 s


async def test_a_returned_slot_is_free_again(store: RateCounters) -> None:
    assert await take(store, "k", 0, limit=1) is None
    await store.return_rate_slot("k", taken_at=at(0))
    assert await take(store, "k", 1, limit=1) is None
    await store.return_rate_slot("nothing", taken_at=at(0))  # nothing to return: no error


async def test_racing_requests_are_admitted_at_most_limit_times(store: RateCounters) -> None:
    answers = await asyncio.gather(*(take(store, "k", 1, limit=5) for _ in range(20)))
    assert sum(answer is None for answer in answers) == 5
    assert await take(store, "k", 2, limit=6) is None  # the 15 refused left nothing counted


async def test_buckets_that_left_every_window_are_swept(store: RateCounters) -> None:
    await take(store, "a", 0)
    await take(store, "a", 10)
    await take(store, "b", 10.5)
    assert await store.sweep_rate_counters(at(10)) == 1  # second 0 ended at or before 10 s
    assert await store.sweep_rate_counters(at(10)) == 0
    assert await take(store, "a", 11, limit=2) is None  # second 10 was kept and still counts
    assert await take(store, "a", 12, limit=2) == 58_000


@pytest.mark.backends("sqlite", "postgresql")
async def test_two_stores_on_one_database_share_the_window(database_url: str) -> None:
    first, second = await open_store(database_url), await open_store(database_url)
    try:
        answers = await asyncio.gather(
            *(take(replica, "k", 1, limit=4) for replica in (first, second) * 5)
        )
        assert sum(answer is None for answer in answers) == 4
        assert await take(second, "k", 2, limit=4) == 59_000
    finally:
        await first.close()
        await second.close()
        if database_url.startswith("postgresql"):  # the next test starts from empty tables
            await truncate_all(database_url)
