"""Expired checkpoints (suspended runs nobody answered in time) are swept; live ones stay."""

from __future__ import annotations

from pathlib import Path

from runyard.ids import now_ms
from runyard.service import sweep_expired
from runyard.storage import open_store


async def test_expired_checkpoints_are_swept_and_live_ones_kept(tmp_path: Path) -> None:
    store = await open_store(f"sqlite:///{tmp_path / 'sweep.db'}")
    try:
        await store.save_checkpoint("run_old", {"status": "suspended"}, expires_at=now_ms() - 1)
        await store.save_checkpoint(
            "run_new", {"status": "suspended"}, expires_at=now_ms() + 60_000
        )
        assert await sweep_expired(store) == 1
        assert await store.load_checkpoint("run_old") is None
        assert await store.load_checkpoint("run_new") == {"status": "suspended"}
    finally:
        await store.close()
