"""A thread's log for a reader that replays it: the transcripts of its finished runs, read from
their snapshots, and the events after the last of them — so a read of a thread's state costs
its snapshots and its newest runs, never a fold of the whole log.

The transcripts are those of the snapshots that lead the thread's and hold one: a snapshot
written before transcripts were kept ends them, and the log after it is read instead (and its
finished runs snapshotted again, now with their transcripts, by a read of the whole thread).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from runyard.service.threads.history import HistoryStore, catch_up, fold_runs
from runyard.service.threads.transcript import TranscriptEntry
from runyard.storage import StoredEvent

__all__ = ["RunTranscript", "ThreadTranscripts", "read_transcripts"]


@dataclass(frozen=True, slots=True)
class RunTranscript:
    """One finished run's transcript."""

    run_id: str
    entries: list[TranscriptEntry]


@dataclass(frozen=True, slots=True)
class ThreadTranscripts:
    """Finished runs' transcripts, in log order, then the log after them (``log``, from event
    ``mark + 1``): to the end, or for a read up to a position, to the end of the first
    snapshotted run that ends past it — a takeover's ``run-resumed`` past the position, which
    drops events before it, is in the run that holds it."""

    runs: list[RunTranscript]
    mark: int
    """The id of the last event the transcripts cover; 0 when there are none."""
    log: list[StoredEvent]
    message_ids: list[str]
    """The user message of every run the snapshots or ``log`` show, past the position too."""


async def read_transcripts(
    store: HistoryStore, thread_id: str, upto: int | None = None
) -> ThreadTranscripts:
    """The thread's log up to event ``upto`` (None: all of it) as the transcripts of the
    finished runs that end by then and the log after them. Reading the whole thread catches up
    the snapshots of the finished runs it had to read the log of (their process died before
    writing them, or wrote them before transcripts were kept)."""
    snapshots = await store.read_run_snapshots(thread_id)
    replayed = list(
        itertools.takewhile(
            lambda s: (
                (upto is None or s.last_event_id <= upto) and s.data.get("transcript") is not None
            ),
            snapshots,
        )
    )
    mark = replayed[-1].last_event_id if replayed else 0
    past = [s.last_event_id for s in snapshots if upto is not None and s.last_event_id > upto]
    # Ids are consecutive: the events up to that run's end are ``end - mark`` of them.
    log = await store.read_events(thread_id, after_id=mark, limit=past[0] - mark if past else None)
    if upto is None and any(e.type == "run-finish" for e in log):
        await catch_up(store, thread_id, fold_runs(log))
    runs = [RunTranscript(s.run_id, s.data["transcript"]) for s in replayed]
    ids = [s.data.get("messageId") for s in snapshots]
    ids += [e.data["payload"]["messageId"] for e in log if e.type == "run-start"]
    return ThreadTranscripts(runs, mark, log, [str(i) for i in dict.fromkeys(ids) if i])
