"""``StoreCheckpointStore``: the runtime's ``CheckpointStore`` over storage's ``Checkpoints`` part.

With it a run suspended by one process can be resumed by another that shares only the
database. Checkpoints get an expiry so abandoned suspensions are swept, not kept forever.
"""

from __future__ import annotations

from typing import Any

from runyard.ids import now_ms
from runyard.storage.parts import Checkpoints

__all__ = ["StoreCheckpointStore"]


class StoreCheckpointStore:
    """``save``/``load``/``delete`` of run checkpoints, kept in a store's ``Checkpoints`` part.

    ``ttl_seconds`` (None = never expire) sets each saved checkpoint's expiry; ``sweep``
    deletes the expired ones.
    """

    def __init__(self, store: Checkpoints, *, ttl_seconds: int | None = 7 * 24 * 3600) -> None:
        self._store = store
        self._ttl_ms = None if ttl_seconds is None else ttl_seconds * 1000

    async def save(self, key: str, state: dict[str, Any]) -> None:
        """Write the checkpoint under ``key`` (overwriting), expiring ``ttl_seconds`` from now."""
        expires_at = None if self._ttl_ms is None else now_ms() + self._ttl_ms
        await self._store.save_checkpoint(key, state, expires_at=expires_at)

    async def load(self, key: str) -> dict[str, Any] | None:
        """The checkpoint, or None when missing or expired."""
        return await self._store.load_checkpoint(key)

    async def delete(self, key: str) -> None:
        """Forget the checkpoint."""
        await self._store.delete_checkpoint(key)

    async def sweep(self) -> int:
        """Delete every expired checkpoint; returns how many were deleted."""
        return await self._store.sweep_expired_checkpoints(now_ms())
