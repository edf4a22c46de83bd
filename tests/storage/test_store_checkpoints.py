"""The ``Checkpoints`` part: overwrite, expiry, sweeping, and the runtime-facing adapter.

The whole suite runs on a checkpoints-only fake too: ``StoreCheckpointStore`` needs no more.
"""

from __future__ import annotations

import pytest
from store_parts import assert_implements

from runyard.ids import now_ms
from runyard.storage import Checkpoints, StoreCheckpointStore

STATE = {"status": "suspended", "messages": [{"id": "m1"}], "pending": {"c1": {"args": {}}}}

pytestmark = pytest.mark.part_fakes("checkpoints-only")


async def test_every_backend_is_a_checkpoints_part(store: Checkpoints) -> None:
    assert_implements(store, Checkpoints)


async def test_saved_checkpoint_loads_until_deleted(store: Checkpoints) -> None:
    await store.save_checkpoint("run-1", STATE)
    assert await store.load_checkpoint("run-1") == STATE
    await store.save_checkpoint("run-1", {"status": "running"})
    assert await store.load_checkpoint("run-1") == {"status": "running"}
    await store.delete_checkpoint("run-1")
    assert await store.load_checkpoint("run-1") is None
    await store.delete_checkpoint("run-1")


async def test_expired_checkpoints_are_invisible_and_swept(store: Checkpoints) -> None:
    now = now_ms()
    await store.save_checkpoint("old", STATE, expires_at=now - 1)
    await store.save_checkpoint("fresh", STATE, expires_at=now + 3_600_000)
    await store.save_checkpoint("forever", STATE)
    assert await store.load_checkpoint("old") is None
    assert await store.sweep_expired_checkpoints(now) == 1
    assert await store.sweep_expired_checkpoints(now) == 0
    assert await store.load_checkpoint("fresh") == STATE
    assert await store.load_checkpoint("forever") == STATE


async def test_adapter_speaks_the_runtimes_checkpoint_protocol(store: Checkpoints) -> None:
    checkpoints = StoreCheckpointStore(store, ttl_seconds=3600)
    await checkpoints.save("run-1", STATE)
    assert await checkpoints.load("run-1") == STATE
    assert await checkpoints.sweep() == 0
    await checkpoints.delete("run-1")
    assert await checkpoints.load("run-1") is None


async def test_expiry_is_judged_at_the_time_the_reader_gives(store: Checkpoints) -> None:
    now = now_ms()
    await store.save_checkpoint("run-1", STATE, expires_at=now + 1_000)
    assert await store.load_checkpoint("run-1", now=now + 999) == STATE
    assert await store.load_checkpoint("run-1", now=now + 1_000) is None


async def test_adapter_expires_checkpoints_on_its_own_clock(store: Checkpoints) -> None:
    clock = [1_000_000]
    checkpoints = StoreCheckpointStore(store, ttl_seconds=60, clock=lambda: clock[0])
    await checkpoints.save("run-1", STATE)
    clock[0] += 59_999
    assert await checkpoints.load("run-1") == STATE
    clock[0] += 1
    assert await checkpoints.load("run-1") is None
