"""A starting server deletes the checkpoints of suspended runs nobody answered in time."""

from __future__ import annotations

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
