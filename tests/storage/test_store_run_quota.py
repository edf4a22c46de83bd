"""``RunLedger.open_run`` with a ``RunQuota``: the tenant's running runs, and its running runs of
one agent, are counted as the run is inserted; a suspended run holds no place; racing openers —
through one store or two on the same database — never overfill the quota."""

from __future__ import annotations

import asyncio

import pytest

from postgres_databases import truncate_all
from runyard.storage import (
    RunConflict,
    RunLedger,
    RunQuota,
    RunQuotaReached,
    RunRecord,
    open_store,
)


async def open_for(
    store: RunLedger, n: int, *, tenant: str = "acme", agent: str = "support", quota: RunQuota
) -> RunRecord:
    return await store.open_run(
        f"r{n}", thread_id=f"t{n}", tenant_id=tenant, owner="p", agent_id=agent, quota=quota
    )


async def test_the_agent_is_stored_with_the_run(store: RunLedger) -> None:
    run = await store.open_run("r1", thread_id="t1", tenant_id="acme", owner="p", agent_id="a")
    assert run.agent_id == "a"
    assert await store.get_run("r1") == run
    bare = await store.open_run("r2", thread_id="t2", tenant_id="acme", owner="p")
    assert (await store.get_run("r2"), bare.agent_id) == (bare, None)


async def test_a_full_tenant_quota_refuses_and_opens_nothing(store: RunLedger) -> None:
    quota = RunQuota(tenant_runs=2)
    await open_for(store, 1, quota=quota)
    await open_for(store, 2, agent="billing", quota=quota)
    with pytest.raises(RunQuotaReached) as refused:
        await open_for(store, 3, quota=quota)
    assert (refused.value.scope, refused.value.limit) == ("tenant", 2)
    assert await store.get_run("r3") is None
    await open_for(store, 4, tenant="globex", quota=quota)  # another tenant's own count


async def test_an_agent_quota_counts_the_tenants_runs_of_that_agent(store: RunLedger) -> None:
    quota = RunQuota(agent_runs=1)
    await open_for(store, 1, quota=quota)
    await open_for(store, 2, agent="billing", quota=quota)
    await open_for(store, 3, tenant="globex", quota=quota)
    with pytest.raises(RunQuotaReached) as refused:
        await open_for(store, 4, quota=quota)
    assert (refused.value.scope, refused.value.limit) == ("agent", 1)


async def test_closed_and_suspended_runs_hold_no_place(store: RunLedger) -> None:
    quota = RunQuota(tenant_runs=1, agent_runs=1)
    first = await open_for(store, 1, quota=quota)
    await store.update_run_status(first.run_id, "suspended", epoch=1)
    second = await open_for(store, 2, quota=quota)
    await store.close_run(second.run_id, "completed", epoch=1)
    await open_for(store, 3, quota=quota)
    with pytest.raises(RunQuotaReached):
        await open_for(store, 4, quota=quota)


async def test_without_a_quota_nothing_is_counted(store: RunLedger) -> None:
    for n in range(5):
        await store.open_run(f"r{n}", thread_id=f"t{n}", tenant_id="acme", owner="p")
    await open_for(store, 9, quota=RunQuota())


async def _race(stores: list[RunLedger], quota: RunQuota) -> int:
    async def one(n: int) -> bool:
        try:
            await open_for(stores[n % len(stores)], n, quota=quota)
        except RunQuotaReached:
            return False
        return True

    return sum(await asyncio.gather(*(one(n) for n in range(12))))


async def test_racing_openers_never_overfill_the_quota(store: RunLedger) -> None:
    assert await _race([store], RunQuota(tenant_runs=3)) == 3


@pytest.mark.backends("sqlite", "postgresql")
async def test_two_stores_on_one_database_share_the_count(database_url: str) -> None:
    first, second = await open_store(database_url), await open_store(database_url)
    try:
        assert await _race([first, second], RunQuota(agent_runs=4)) == 4
    finally:
        await first.close()
        await second.close()
        if database_url.startswith("postgresql"):  # the next test starts from empty tables
            await truncate_all(database_url)


async def test_a_thread_with_an_open_run_conflicts_before_the_quota_is_asked(
    store: RunLedger,
) -> None:
    quota = RunQuota(tenant_runs=1)
    await open_for(store, 1, quota=quota)
    with pytest.raises(RunConflict):
        await store.open_run("r2", thread_id="t1", tenant_id="acme", owner="p", quota=quota)
