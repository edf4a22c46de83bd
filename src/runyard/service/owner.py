"""``Owner``: whom a request acts for — a user (``resource_id``) inside a tenant."""

from __future__ import annotations

from dataclasses import dataclass

from runyard.runtime import MemoryScope

__all__ = ["Owner"]


@dataclass(frozen=True, slots=True)
class Owner:
    """A thread belongs to exactly one owner; every other owner finds nothing of it."""

    tenant_id: str = "default"
    user_id: str = "default"

    def scope(self, thread_id: str) -> MemoryScope:
        """The memory scope of ``thread_id`` for this owner."""
        return MemoryScope(thread_id, self.user_id, self.tenant_id)
