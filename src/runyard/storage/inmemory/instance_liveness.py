"""``InstanceLiveness`` in memory: one process, so no other instance's death is ever seen."""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["InstanceLivenessPart"]


class InstanceLivenessPart:
    """Holds nothing: the runs of a process-local store die with it."""

    async def hold_instance(self, instance_id: str) -> bool:
        return False

    async def dead_instances(self, instance_ids: Collection[str]) -> set[str]:
        return set()
