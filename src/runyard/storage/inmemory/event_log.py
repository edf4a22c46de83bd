"""The event log of the in-memory store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from runyard.json_text import json_text
from runyard.storage.inmemory.json_copy import json_copy
from runyard.storage.inmemory.state import MemoryState
from runyard.storage.parts import EventLogStore
from runyard.storage.records import LedgerWrite, StoredEvent

__all__ = ["EventLogPart"]


class EventLogPart(MemoryState, EventLogStore):
    """Each thread's events by id; a batch with a reused id is refused whole."""

    async def append_events(
        self,
        thread_id: str,
        events: Sequence[StoredEvent],
        /,
        *,
        ledger: Sequence[LedgerWrite] = (),
    ) -> None:
        for journaled in ledger:
            self._fence(journaled.run_id, journaled.epoch)
        self._check_new_events(thread_id, events)
        for journaled in ledger:
            self._keep_journal(journaled.run_id, journaled.calls, journaled.state)
        for event in events:
            self._keep_event(thread_id, event)

    async def read_events(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        log = self._events.get(thread_id, {})
        ids = sorted(i for i in log if i > after_id)
        return [replace(log[i], data=json_copy(log[i].data)) for i in ids[:limit]]

    async def read_event_json(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[tuple[int, str]]:
        events = await self.read_events(thread_id, after_id=after_id, limit=limit)
        return [(e.id, json_text(e.data)) for e in events]

    async def last_event_id(self, thread_id: str) -> int:
        return max(self._events.get(thread_id, {}), default=0)
