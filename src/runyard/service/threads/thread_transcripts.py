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
    """Finished runs' transcripts, in log order, then the whole log after them (``log``, from
    event ``mark + 1``): a reader folding up to a position stops there in it, and still sees a
    takeover's ``run-resumed`` past it."""

    runs: list[RunTranscript]
    mark: int
    """The id of the last event the transcripts cover; 0 when there are none."""
    log: list[StoredEvent]


async def read_transcripts(
    store: HistoryStore, thread_id: str, upto: int | None = None
) -> ThreadTranscripts:
    """The thread's log as the transcripts of its finished runs that end by event ``upto``
    (None: all of them) and the log after them. Reading the whole thread catches up the
    snapshots of the finished runs it had to read the log of (their process died before
    writing them, or wrote them before transcripts were kept)."""
    before = None if upto is None else upto + 1
    snapshots = await store.read_run_snapshots(thread_id, before_event_id=before)
    kept = list(itertools.takewhile(lambda s: s.data.get("transcript") is not None, snapshots))
    mark = kept[-1].last_event_id if kept else 0
    log = await store.read_events(thread_id, after_id=mark)
    if upto is None and any(e.type == "run-finish" for e in log):
        await catch_up(store, thread_id, fold_runs(log))
    runs = [RunTranscript(s.run_id, s.data["transcript"]) for s in kept]
    return ThreadTranscripts(runs, mark, log)
