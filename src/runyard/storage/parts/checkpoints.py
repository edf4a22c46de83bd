"""``Checkpoints``: the saved state of suspended runs, with an expiry so abandoned ones go."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Checkpoints"]


@runtime_checkable
class Checkpoints(Protocol):
    """Checkpoint documents by key; ``StoreCheckpointStore`` adapts them for the runtime."""

    async def save_checkpoint(
        self, key: str, state: dict[str, Any], *, expires_at: int | None = None
    ) -> None:
        """Write (overwrite) a checkpoint; ``expires_at`` in epoch ms, None = never."""
        ...

    async def load_checkpoint(self, key: str, *, now: int | None = None) -> dict[str, Any] | None:
        """The checkpoint's state, or None when missing or expired at ``now`` (epoch ms;
        default this moment)."""
        ...

    async def delete_checkpoint(self, key: str) -> None:
        """Forget the checkpoint (no error when missing)."""
        ...

    async def sweep_expired_checkpoints(self, now: int) -> int:
        """Delete checkpoints with ``expires_at <= now``; returns how many."""
        ...
