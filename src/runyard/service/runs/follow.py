"""``follow_run``: one run's wire events from the thread's log, to its end or its suspension —
what every surface that answers with one run (gRPC ``Invoke``/``Stream``, the faces) reads.

A run logs ``run-finish`` when it ends. It logs no event when it suspends: it stores its
confirmation requests, logs them, then marks itself ``suspended``. So after a
``confirmation-request`` with nothing logged behind it, the follower asks the store, every
``SUSPENSION_POLL_SECONDS``, whether the run is suspended yet (or has gone on). While nothing is
logged otherwise it checks every ``IDLE_CHECK_SECONDS`` that the run is still open, so a run
that closed without a ``run-finish`` (it never started) ends its followers too.

A run's row closes only after its ``run-finish`` is durable, so a follower that knew the run closed
before a read waits for nothing more: the read takes what is stored and, when that is nothing (the
cursor is at or past the end, as when a retry picks the run up from its last event), the follower
answers with the run's own ``run-finish`` again — its true ending, at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Coroutine
from dataclasses import dataclass
from typing import Any

from runyard.protocol import (
    ConfirmationRequestEvent,
    FilesystemRequestEvent,
    RunFinishEvent,
    WireEvent,
    parse_event,
)
from runyard.service.event_log import EventLog, LiveEvent
from runyard.service.runs.log_scan import newest_event
from runyard.storage import RunRecord, Store

__all__ = [
    "IDLE_CHECK_SECONDS",
    "SUSPENSION_POLL_SECONDS",
    "FollowStopped",
    "FollowedRun",
    "RunPause",
    "follow_run",
]

SUSPENSION_POLL_SECONDS = 0.05
IDLE_CHECK_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class FollowedRun:
    """A run of a thread, and the log id its events are read after."""

    thread_key: str
    run_id: str
    cursor: int


class FollowStopped(Exception):
    """The follower was told to stop (the server drains); ``last_event_id`` is the last event it
    gave, so the caller can say where to pick the run up again, on any replica."""

    def __init__(self, last_event_id: int) -> None:
        super().__init__(f"stopped after event {last_event_id}")
        self.last_event_id = last_event_id


@dataclass(frozen=True, slots=True)
class RunPause:
    """The run stopped without a ``run-finish`` to follow: ``suspended`` (waiting for
    ``Confirm``), or closed (``failed``/``cancelled``) with ``reason``; ``event_id`` is the
    last logged event of the run."""

    event_id: int
    status: str
    reason: str | None = None


async def follow_run(
    store: Store, events: EventLog, run: FollowedRun, stopping: asyncio.Event
) -> AsyncGenerator[tuple[int, WireEvent] | RunPause, None]:
    """``(log id, event)`` of the run's events after ``run.cursor``, then a ``RunPause`` unless
    the last was its ``run-finish``; the run ended before the cursor: its ``run-finish`` (at its
    own id) or, when it logged none, a ``RunPause``. ``stopping`` set: ``FollowStopped``."""
    record = await store.get_run(run.run_id)
    asked = record is not None and record.status == "suspended"
    last = run.cursor
    async with events.reader(run.thread_key, after=run.cursor) as reader:
        while True:
            # Closed before this read began: the read finds all it will ever log.
            closed = record if record is not None and not record.is_open else None
            wait = 0 if closed else SUSPENSION_POLL_SECONDS if asked else IDLE_CHECK_SECONDS
            batch = await _next(reader.next(max_wait=wait), stopping, last)
            if not batch and closed is not None:
                yield await _ending(store, run, closed, last)
                return
            if not batch:
                record = await store.get_run(run.run_id)
                pause = _pause(record, asked, last)
                if pause is not None:
                    yield pause
                    return
                continue
            for live in batch:
                event = parse_event(live.json)
                if event.run_id != run.run_id:
                    continue  # another run's late event (a title), or an earlier run's
                last = live.id
                yield live.id, event
                if isinstance(event, RunFinishEvent):
                    return
                # A question for a person, or a file request for the client: either suspends.
                asked = isinstance(event, ConfirmationRequestEvent | FilesystemRequestEvent)


async def _next(
    reading: Coroutine[Any, Any, list[LiveEvent]], stopping: asyncio.Event, last: int
) -> list[LiveEvent]:
    read = asyncio.ensure_future(reading)
    stop = asyncio.ensure_future(stopping.wait())
    try:
        await asyncio.wait({read, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    if read.done():
        return read.result()
    read.cancel()
    raise FollowStopped(last)


def _pause(record: RunRecord | None, asked: bool, last: int) -> RunPause | None:
    if record is None:
        return RunPause(last, "error", "the run is gone")
    if record.status == "suspended" and asked:
        return RunPause(last, "suspended")
    return None  # open, or closed since the read began: read what it logged once more


async def _ending(
    store: Store, run: FollowedRun, record: RunRecord, last: int
) -> tuple[int, WireEvent] | RunPause:
    """How the closed run ended, everything it logged being at or before ``last``."""
    found = await newest_event(
        store,
        run.thread_key,
        lambda e: e.run_id == run.run_id and e.type in ("run-finish", "run-start"),
        up_to=last,
    )
    if found is not None and found.type == "run-finish":
        return found.id, parse_event(found.data)
    # Closed, and its run-finish was not logged (a run that never started logs nothing).
    status = "cancelled" if record.status == "cancelled" else "error"
    return RunPause(last, status, record.reason)
