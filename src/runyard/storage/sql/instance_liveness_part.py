"""``InstanceLiveness`` on SQLite and PostgreSQL: the backend's ``InstanceLocks``."""

from __future__ import annotations

from collections.abc import Collection

from runyard.storage.sql.state import SqlState

__all__ = ["InstanceLivenessPart"]


class InstanceLivenessPart(SqlState):
    """Holds this process's instance id, and tells which others lost theirs."""

    async def hold_instance(self, instance_id: str) -> bool:
        return await self._instance_locks.hold(instance_id)

    async def dead_instances(self, instance_ids: Collection[str]) -> set[str]:
        return await self._instance_locks.dead(instance_ids)
