"""API keys of the in-memory store."""

from __future__ import annotations

from dataclasses import replace

from runyard.storage.errors import ApiKeyConflict
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import ApiKeys
from runyard.storage.records import ApiKey

__all__ = ["ApiKeysPart"]


class ApiKeysPart(MemoryState, ApiKeys):
    """Keys by id (records are frozen, so handing them out needs no copy)."""

    async def create_api_key(self, key: ApiKey) -> None:
        if key.key_id in self._api_keys:
            raise ApiKeyConflict(key.key_id)
        self._api_keys[key.key_id] = key

    async def get_api_key(self, key_id: str) -> ApiKey | None:
        return self._api_keys.get(key_id)

    async def list_api_keys(self, *, tenant_id: str | None = None) -> list[ApiKey]:
        chosen = (
            k for k in self._api_keys.values() if tenant_id is None or k.tenant_id == tenant_id
        )
        return sorted(chosen, key=lambda k: (k.created_at, k.key_id))

    async def revoke_api_key(self, key_id: str, *, at: int) -> ApiKey | None:
        key = self._api_keys.get(key_id)
        if key is not None and key.revoked_at is None:
            key = self._api_keys[key_id] = replace(key, revoked_at=at)
        return key

    async def mark_api_key_used(self, key_id: str, *, at: int) -> None:
        key = self._api_keys.get(key_id)
        if key is not None and (key.last_used_at is None or key.last_used_at < at):
            self._api_keys[key_id] = replace(key, last_used_at=at)
