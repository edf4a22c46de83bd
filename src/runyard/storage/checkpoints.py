"""``StoreCheckpointStore``: the runtime's ``CheckpointStore`` over storage's ``Checkpoints`` part.

With it a run suspended by one process can be resumed by another that shares only the
database. Checkpoints get an expiry so abandoned suspensions are swept, not kept forever.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runyard.ids import now_ms
from runyard.storage.parts import Checkpoints

__all__ = ["StoreCheckpointStore"]


class StoreCheckpointStore:
    """``save``/``load``/``delete`` of run checkpoints, kept in a store's ``Checkpoints`` part.

    ``ttl_seconds`` (None = never expire) sets each saved checkpoint's expiry; ``sweep``
    deletes the expired ones. ``clock`` (epoch ms) is what "now" is for both — tests pass one
    they can move forward instead of waiting.
    """

    def __init__(
        self,
        store: Checkpoints,
        *,
        ttl_seconds: int | None = 7 * 24 * 3600,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self._store = store
        self._ttl_ms = None if ttl_seconds is None else ttl_seconds * 1000
        self._clock = clock

    async def save(self, key: str, state: dict[str, Any]) -> None:
        """Write the checkpoint under ``key`` (overwriting), expiring ``ttl_seconds`` from now."""
        expires_at = None if self._ttl_ms is None else self._clock() + self._ttl_ms
        await self._store.save_checkpoint(key, state, expires_at=expires_at)

    async def load(self, key: str) -> dict[str, Any] | None:
        """The checkpoint, or None when missing or expired."""
        return await self._store.load_checkpoint(key, now=self._clock())

    async def delete(self, key: str) -> None:
        """Forget the checkpoint."""
        await self._store.delete_checkpoint(key)

    async def sweep(self) -> int:
        """Delete every expired checkpoint; returns how many were deleted."""
        return await self._store.sweep_expired_checkpoints(self._clock())
