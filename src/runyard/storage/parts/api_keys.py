"""``ApiKeys``: the stored API keys — who each acts for, the hash of its secret, its lifetime.

Keyed by the public key id only: the service verifies a presented key with one read by id and
compares hashes itself; the store never sees a key. Rows are never deleted, so a revoked key
keeps its history and its id is never handed out again.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from runyard.storage.records import ApiKey

__all__ = ["ApiKeys"]


@runtime_checkable
class ApiKeys(Protocol):
    """Create, find, list, revoke API keys and note when each was last used."""

    async def create_api_key(self, key: ApiKey, /) -> None:
        """Store a new key as given; raises ``ApiKeyConflict`` (storing nothing) when its id is
        taken."""
        ...

    async def get_api_key(self, key_id: str) -> ApiKey | None:
        """The key with this id, revoked or expired included; None when there is none."""
        ...

    async def list_api_keys(self, *, tenant_id: str | None = None) -> list[ApiKey]:
        """Every key (of ``tenant_id`` only, when given), oldest first (then by id)."""
        ...

    async def revoke_api_key(self, key_id: str, *, at: int) -> ApiKey | None:
        """Revoke the key at ``at`` (epoch ms) unless it already is — a second revocation keeps
        the first time — and return it as stored now; None when there is no such key."""
        ...

    async def mark_api_key_used(self, key_id: str, *, at: int) -> None:
        """Set ``last_used_at`` to ``at`` unless it is already that late; nothing for an unknown
        id. Racing callers can only move it forward."""
        ...
