"""``newest_event``: a thread's log read from its end backwards, for the one event a caller
wants — the run a call follows, or how a run ended, is nearly always among the last."""

from __future__ import annotations

from collections.abc import Callable

from runyard.storage import EventLogStore, StoredEvent

__all__ = ["SCAN_SLICE", "newest_event"]

SCAN_SLICE = 500
"""How many events one backwards read takes."""


async def newest_event(
    store: EventLogStore,
    thread_key: str,
    wanted: Callable[[StoredEvent], bool],
    *,
    up_to: int | None = None,
) -> StoredEvent | None:
    """The newest ``wanted`` event of the thread, with ``id <= up_to`` when given."""
    high = await store.last_event_id(thread_key)
    if up_to is not None:
        high = min(high, up_to)
    while high > 0:
        low = max(0, high - SCAN_SLICE)
        events = await store.read_events(thread_key, after_id=low, limit=high - low)
        for event in reversed(events):
            if wanted(event):
                return event
        high = low
    return None
