"""A starting server deletes the checkpoints of suspended runs nobody answered in time, and
settles the runs whose lease expired — never a live process's, on this host or another."""

from __future__ import annotations

import socket
from pathlib import Path

from http_harness import running_app

from runyard.ids import now_ms
from runyard.storage import open_store


async def test_the_server_sweeps_expired_checkpoints_when_it_starts(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sweep.db'}"
    store = await open_store(url)
    await store.save_checkpoint("run_old", {"status": "suspended"}, expires_at=now_ms() - 1)
    await store.close()
    async with running_app(url):
        pass
    store = await open_store(url)
    try:
        assert await store.load_checkpoint("run_old") is None
    finally:
        await store.close()


async def test_a_starting_server_settles_only_runs_whose_lease_expired(tmp_path: Path) -> None:
    """A neighbour on this very host is alive while its lease runs: start-up leaves it alone."""
    url, host = f"sqlite:///{tmp_path / 'sweep.db'}", socket.gethostname()
    store = await open_store(url)
    for run_id, lease_until in (("run_live", now_ms() + 60_000), ("run_dead", now_ms() - 1)):
        await store.save_thread(run_id, tenant_id="acme", resource_id="alice")
        await store.open_run(
            run_id,
            thread_id=run_id,
            tenant_id="acme",
            owner=f"{host}-{run_id}",
            lease_until=lease_until,
        )
    await store.close()
    async with running_app(url):
        pass
    store = await open_store(url)
    try:
        live, dead = await store.get_run("run_live"), await store.get_run("run_dead")
    finally:
        await store.close()
    assert live is not None
    assert (live.status, live.lease_owner, live.lease_epoch) == ("running", f"{host}-run_live", 1)
    assert dead is not None
    assert (dead.status, dead.reason) == ("interrupted", "server restarted")
