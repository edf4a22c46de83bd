"""Checkpoints of the in-memory store."""

from __future__ import annotations

from typing import Any

from runyard.ids import now_ms
from runyard.storage.inmemory.json_copy import json_copy
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import Checkpoints

__all__ = ["CheckpointsPart"]


class CheckpointsPart(MemoryState, Checkpoints):
    """Checkpoint documents by key, invisible once their expiry has passed."""

    async def save_checkpoint(
        self, key: str, state: dict[str, Any], *, expires_at: int | None = None
    ) -> None:
        self._checkpoints[key] = (json_copy(state), expires_at)

    async def load_checkpoint(self, key: str, *, now: int | None = None) -> dict[str, Any] | None:
        row = self._checkpoints.get(key)
        at = now_ms() if now is None else now
        if row is None or (row[1] is not None and row[1] <= at):
            return None
        return json_copy(row[0])

    async def delete_checkpoint(self, key: str) -> None:
        self._checkpoints.pop(key, None)

    async def sweep_expired_checkpoints(self, now: int) -> int:
        expired = [k for k, (_, at) in self._checkpoints.items() if at is not None and at <= now]
        for key in expired:
            del self._checkpoints[key]
        return len(expired)
