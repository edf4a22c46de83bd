"""``EventLogStore``: each thread's event log, the truth that SSE replay reads (DESIGN.md §8).

Ids come from the thread's single writer; the store only refuses to hold one id twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from runyard.storage.records import LedgerWrite, StoredEvent

__all__ = ["EventLogStore"]


@runtime_checkable
class EventLogStore(Protocol):
    """Append batches of numbered events to a thread's log and read them back in order."""

    async def append_events(
        self,
        thread_id: str,
        events: Sequence[StoredEvent],
        /,
        *,
        ledger: Sequence[LedgerWrite] = (),
    ) -> None:
        """Insert the batch in one transaction. Ids come from the writer and are unique per
        thread: a reused id raises ``EventIdConflict`` and nothing of the batch is stored.

        ``ledger`` goes into the ``ToolLedger`` in the same transaction — tool-call rows, and a
        progress checkpoint where ``LedgerWrite.state`` is given — as
        ``ToolLedger.record_progress`` writes them: each run's fenced by its epoch
        (``StaleLease``, nothing of the batch stored, when it moved on or the run closed)."""
        ...

    async def read_events(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``id > after_id``, ascending, at most ``limit``."""
        ...

    async def read_event_json(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[tuple[int, str]]:
        """Like ``read_events``, as ``(id, JSON text of data)``: replay sends stored text as it
        is, without decoding and re-encoding every event."""
        ...

    async def last_event_id(self, thread_id: str) -> int:
        """The highest event id of the thread, 0 when the log is empty."""
        ...
