"""Hand-written fakes of one storage part each: what a test needs when code asks for one part.

Each runs its part's contract suite beside the real backends (the ``part_fakes`` marker of
``conftest``), so it is known to keep the same promises.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from runyard.ids import now_ms
from runyard.json_text import json_text
from runyard.storage import (
    EventIdConflict,
    LedgerWrite,
    Plan,
    StoredEvent,
    ThreadOwnershipError,
)

__all__ = ["PART_FAKES", "CheckpointsOnly", "EventLogOnly", "PlansOnly"]


class EventLogOnly:
    """An ``EventLogStore`` and nothing else: each thread's events in a dict by id."""

    def __init__(self) -> None:
        self._logs: dict[str, dict[int, StoredEvent]] = {}

    async def append_events(
        self,
        thread_id: str,
        batch: Sequence[StoredEvent],
        /,
        *,
        ledger: Sequence[LedgerWrite] = (),
    ) -> None:
        if ledger:
            raise NotImplementedError("an event log alone keeps no tool ledger")
        log = self._logs.setdefault(thread_id, {})
        ids = {e.id for e in batch}
        if len(ids) != len(batch) or ids & log.keys():
            raise EventIdConflict(f"event id reused in thread {thread_id!r}")
        log.update((e.id, copy.deepcopy(e)) for e in batch)

    async def read_events(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        log = self._logs.get(thread_id, {})
        return [copy.deepcopy(log[i]) for i in sorted(i for i in log if i > after_id)][:limit]

    async def read_event_json(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[tuple[int, str]]:
        events = await self.read_events(thread_id, after_id=after_id, limit=limit)
        return [(e.id, json_text(e.data)) for e in events]

    async def last_event_id(self, thread_id: str) -> int:
        return max(self._logs.get(thread_id, {}), default=0)


class CheckpointsOnly:
    """A ``Checkpoints`` part and nothing else: states with their expiry in a dict by key."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[dict[str, Any], int | None]] = {}

    async def save_checkpoint(
        self, key: str, state: dict[str, Any], *, expires_at: int | None = None
    ) -> None:
        self._rows[key] = (copy.deepcopy(state), expires_at)

    async def load_checkpoint(self, key: str, *, now: int | None = None) -> dict[str, Any] | None:
        state, expires_at = self._rows.get(key, (None, None))
        live = expires_at is None or expires_at > (now_ms() if now is None else now)
        return copy.deepcopy(state) if live else None

    async def delete_checkpoint(self, key: str) -> None:
        self._rows.pop(key, None)

    async def sweep_expired_checkpoints(self, now: int) -> int:
        expired = [k for k, (_, at) in self._rows.items() if at is not None and at <= now]
        for key in expired:
            del self._rows[key]
        return len(expired)


class PlansOnly:
    """A ``PlanTier`` and nothing else: each thread's owner and plan in a dict."""

    def __init__(self) -> None:
        self._plans: dict[str, tuple[tuple[str, str], Plan | None]] = {}

    async def get_plan(self, thread_id: str, *, tenant_id: str, resource_id: str) -> Plan | None:
        owner, plan = self._plans.get(thread_id, (None, None))
        return copy.deepcopy(plan) if owner == (tenant_id, resource_id) else None

    async def save_plan(
        self, thread_id: str, data: dict[str, Any], *, tenant_id: str, resource_id: str
    ) -> Plan:
        owner = self._plans.get(thread_id, ((tenant_id, resource_id), None))[0]
        if owner != (tenant_id, resource_id):
            raise ThreadOwnershipError(f"thread {thread_id!r} belongs to another owner")
        plan = Plan(thread_id, copy.deepcopy(data), now_ms())
        self._plans[thread_id] = (owner, plan)
        return copy.deepcopy(plan)


PART_FAKES: dict[str, type] = {
    "event-log-only": EventLogOnly,
    "checkpoints-only": CheckpointsOnly,
    "plans-only": PlansOnly,
}
"""The fakes by the backend name their suites run them under."""
