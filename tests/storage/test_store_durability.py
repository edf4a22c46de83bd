"""What only a shared database gives: another process resumes, concurrent writers all land."""

from __future__ import annotations

import asyncio
import sys
import textwrap

import pytest

from runyard.messages import AgentMessage
from runyard.storage import RunConflict, Store, StoreCheckpointStore, StoredEvent, open_store

ALICE = {"tenant_id": "acme", "resource_id": "alice"}

_SUSPEND_IN_ANOTHER_PROCESS = textwrap.dedent(
    """
    import asyncio, sys
    from runyard.storage import StoreCheckpointStore, open_store

    async def main(url: str) -> None:
        store = await open_store(url)
        await store.open_run("run-1", thread_id="t1", tenant_id="acme", owner="proc-a",
                             status="suspended")
        await StoreCheckpointStore(store).save("run-1", {"status": "suspended", "pending": ["c1"]})
        await store.close()

    asyncio.run(main(sys.argv[1]))
    """
)


@pytest.mark.backends("sqlite", "postgresql")
async def test_a_run_suspended_by_one_process_is_resumed_by_another(database_url: str) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _SUSPEND_IN_ANOTHER_PROCESS, database_url
    )
    assert await asyncio.wait_for(process.wait(), timeout=60) == 0
    store = await open_store(database_url)
    try:
        state = await StoreCheckpointStore(store).load("run-1")
        assert state == {"status": "suspended", "pending": ["c1"]}
        run = await store.take_over("run-1", "proc-b")
        assert (run.status, run.lease_owner, run.lease_epoch) == ("suspended", "proc-b", 2)
        await store.close_run("run-1", "completed", epoch=2)
        await StoreCheckpointStore(store).delete("run-1")
    finally:
        await store.close()


@pytest.mark.backends("sqlite", "postgresql")
async def test_concurrent_writers_through_two_stores_all_land(database_url: str) -> None:
    first, second = await open_store(database_url), await open_store(database_url)
    try:
        await _write_concurrently(first, second)
        messages = await first.get_messages("shared", **ALICE)
        assert len(messages) == 40
        for i in range(10):
            assert await second.last_event_id(f"log-{i}") == 20
    finally:
        await first.close()
        await second.close()


async def _write_concurrently(first: Store, second: Store) -> None:
    async def messages(store: Store, i: int) -> None:
        await store.save_messages("shared", [AgentMessage.user(f"{i}")], **ALICE)

    async def events(store: Store, i: int) -> None:
        for batch in range(2):
            ids = range(batch * 10 + 1, batch * 10 + 11)
            await store.append_events(
                f"log-{i}", [StoredEvent(f"log-{i}", n, "r", "x", {}, n) for n in ids]
            )

    stores = (first, second)
    await asyncio.gather(
        *(messages(stores[i % 2], i) for i in range(40)),
        *(events(stores[i % 2], i) for i in range(10)),
    )


@pytest.mark.backends("sqlite", "postgresql")
async def test_racing_opens_across_two_stores_have_one_winner(database_url: str) -> None:
    stores = [await open_store(database_url), await open_store(database_url)]

    async def attempt(i: int) -> bool:
        try:
            await stores[i % 2].open_run(f"r{i}", thread_id="t1", tenant_id="acme", owner=f"p{i}")
        except RunConflict:
            return False
        return True

    try:
        wins = await asyncio.gather(*(attempt(i) for i in range(10)))
        assert sum(wins) == 1
    finally:
        for store in stores:
            await store.close()
