"""Working memory, observations and plans of the in-memory store."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from runyard.ids import now_ms
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import MemoryTiers
from runyard.storage.records import (
    MemoryScope,
    MessageCursor,
    Observation,
    ObservationCursor,
    Plan,
    WorkingMemory,
)
from runyard.storage.scopes import thread_key

__all__ = ["MemoryTiersPart"]


class MemoryTiersPart(MemoryState, MemoryTiers):
    """The memory tiers above plain message history, each scoped to its owner."""

    async def get_working_memory(
        self,
        *,
        tenant_id: str,
        resource_id: str,
        scope: MemoryScope,
        thread_id: str | None = None,
    ) -> WorkingMemory | None:
        key = thread_key(scope, thread_id)
        if key and not self._owned(key, tenant_id, resource_id):
            return None
        return self._working.get((tenant_id, resource_id, key))

    async def save_working_memory(
        self,
        content: str,
        *,
        tenant_id: str,
        resource_id: str,
        scope: MemoryScope,
        thread_id: str | None = None,
    ) -> WorkingMemory:
        key = thread_key(scope, thread_id)
        if key:
            self._claim(key, tenant_id, resource_id)
        doc = WorkingMemory(tenant_id, resource_id, scope, key or None, content, now_ms())
        self._working[(tenant_id, resource_id, key)] = doc
        return doc

    async def append_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        self._claim(thread_id, tenant_id, resource_id)
        self._add_observations(thread_id, observations)

    async def list_observations(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> list[Observation]:
        if not self._owned(thread_id, tenant_id, resource_id):
            return []
        rows = sorted(
            self._observations.get(thread_id, {}).values(),
            key=lambda row: (row[1].created_at, row[0]),
        )
        return [copy.deepcopy(obs) for _, obs in rows]

    async def replace_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        self._claim(thread_id, tenant_id, resource_id)
        self._observations[thread_id] = {}
        await self.append_observations(
            thread_id, observations, tenant_id=tenant_id, resource_id=resource_id
        )

    async def condense_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        *,
        replaces: Sequence[str],
        tenant_id: str,
        resource_id: str,
    ) -> bool:
        self._claim(thread_id, tenant_id, resource_id)
        rows = self._observations.setdefault(thread_id, {})
        wanted = set(replaces)
        if not wanted <= rows.keys():
            return False
        for key in wanted:
            del rows[key]
        self._add_observations(thread_id, observations)
        return True

    async def get_observation_cursor(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> ObservationCursor | None:
        if not self._owned(thread_id, tenant_id, resource_id):
            return None
        return self._cursors.get(thread_id)

    async def set_observation_cursor(
        self, thread_id: str, cursor: MessageCursor, *, tenant_id: str, resource_id: str
    ) -> ObservationCursor:
        self._claim(thread_id, tenant_id, resource_id)
        row = ObservationCursor(thread_id, cursor.created_at, cursor.message_id, now_ms())
        self._cursors[thread_id] = row
        return row

    async def advance_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        *,
        cursor: MessageCursor,
        expected: MessageCursor | None,
        tenant_id: str,
        resource_id: str,
    ) -> bool:
        self._claim(thread_id, tenant_id, resource_id)
        current = self._cursors.get(thread_id)
        if _position(current) != expected:
            return False
        # No await between the check and the writes: nothing else runs in between.
        self._add_observations(thread_id, observations)
        row = ObservationCursor(thread_id, cursor.created_at, cursor.message_id, now_ms())
        self._cursors[thread_id] = row
        return True

    def _add_observations(self, thread_id: str, observations: Sequence[Observation]) -> None:
        rows = self._observations.setdefault(thread_id, {})
        for obs in observations:
            seq = rows[obs.id][0] if obs.id in rows else next(self._seq)
            rows[obs.id] = (seq, copy.deepcopy(obs))

    async def get_plan(self, thread_id: str, *, tenant_id: str, resource_id: str) -> Plan | None:
        if not self._owned(thread_id, tenant_id, resource_id):
            return None
        return copy.deepcopy(self._plans.get(thread_id))

    async def save_plan(
        self, thread_id: str, data: dict[str, Any], *, tenant_id: str, resource_id: str
    ) -> Plan:
        self._claim(thread_id, tenant_id, resource_id)
        plan = Plan(thread_id, copy.deepcopy(data), now_ms())
        self._plans[thread_id] = plan
        return copy.deepcopy(plan)


def _position(cursor: ObservationCursor | None) -> MessageCursor | None:
    return None if cursor is None else MessageCursor(cursor.message_created_at, cursor.message_id)
