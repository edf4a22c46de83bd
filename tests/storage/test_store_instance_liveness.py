"""The ``InstanceLiveness`` part: a process holds its instance id for as long as it lives, and
another process sees it dead the moment it is killed — on SQLite by a lock file's ``flock``, on
PostgreSQL by a session's advisory lock. The holder is a real process, killed with SIGKILL."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from store_parts import assert_implements

from runyard.storage import InstanceLiveness, Store, open_store

HOLDER = """
import asyncio, sys
from runyard.storage import open_store

async def main():
    store = await open_store(sys.argv[1])
    print("held" if await store.hold_instance(sys.argv[2]) else "refused", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)

asyncio.run(main())
"""


@contextmanager
def holder(url: str, instance_id: str) -> Iterator[subprocess.Popen[str]]:
    """A process that opens the store at ``url`` and holds ``instance_id`` until killed; its
    first line says whether it got the hold."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, url, instance_id],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    ) as process:
        try:
            yield process
        finally:
            process.kill()


def said(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    return process.stdout.readline().strip()


async def seen_dead(store: InstanceLiveness, instance_id: str) -> bool:
    """Whether ``instance_id`` is seen dead within a bound (PostgreSQL ends a killed client's
    session as soon as it reads the closed socket; the wait is for that, not a clock)."""
    for _ in range(200):
        if await store.dead_instances([instance_id]) == {instance_id}:
            return True
        await asyncio.sleep(0.05)
    return False


async def test_every_backend_is_an_instance_liveness(store: InstanceLiveness) -> None:
    assert_implements(store, InstanceLiveness)


@pytest.mark.backends("memory")
async def test_a_process_local_store_holds_nothing_and_sees_nobody_dead(store: Store) -> None:
    assert await store.hold_instance("me") is False
    assert await store.dead_instances(["me", "other"]) == set()


@pytest.mark.backends("sqlite", "postgresql")
async def test_a_killed_holder_is_seen_dead_and_a_live_one_is_not(
    store: Store, database_url: str
) -> None:
    with holder(database_url, "replica-a") as a, holder(database_url, "replica-b") as b:
        assert (said(a), said(b)) == ("held", "held")
        assert await store.dead_instances(["replica-a", "replica-b"]) == set()

        a.send_signal(signal.SIGKILL)
        a.wait(timeout=30)

        assert await seen_dead(store, "replica-a")
        assert await store.dead_instances(["replica-a", "replica-b"]) == {"replica-a"}


@pytest.mark.backends("sqlite", "postgresql")
async def test_an_id_a_live_process_holds_cannot_be_held_again_and_is_free_once_it_dies(
    store: Store, database_url: str
) -> None:
    with holder(database_url, "replica-a") as first:
        assert said(first) == "held"
        assert await store.hold_instance("replica-a") is False
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        assert await seen_dead(store, "replica-a")
    assert await store.hold_instance("replica-a") is True
    assert await store.hold_instance("replica-a") is True  # holding it already
    assert await store.dead_instances(["replica-a"]) == set()


@pytest.mark.backends("sqlite", "postgresql")
async def test_an_instance_that_never_held_its_id_is_not_judged_dead(store: Store) -> None:
    # A process of an older runyard holds no lock: its absence says nothing of it.
    assert await store.dead_instances(["never-held"]) == set()


@pytest.mark.backends("sqlite", "postgresql")
async def test_a_holder_that_stops_cleanly_is_forgotten_not_judged_dead(
    store: Store, database_url: str
) -> None:
    stopping = await open_store(database_url)
    assert await stopping.hold_instance("replica-a") is True
    await stopping.close()

    assert await store.dead_instances(["replica-a"]) == set()
