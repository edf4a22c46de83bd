"""Uploads whose writer died (a crash, a killed replica) leave a ``writing`` row and the bytes
written so far; the servers' hourly sweep deletes the ones older than ``ABANDONED_AFTER_MS``.

An upload still arriving after that long is abandoned too: it fails instead of finishing (at
``RUNYARD_MAX_FILE_BYTES``' default of 20 MiB that is a client below 6 KB/s).
"""

from __future__ import annotations

from runyard.storage import Files

__all__ = ["ABANDONED_AFTER_MS", "sweep_abandoned_uploads"]

ABANDONED_AFTER_MS = 3_600_000


async def sweep_abandoned_uploads(store: Files, now: int) -> int:
    """Delete the uploads that started before ``now - ABANDONED_AFTER_MS`` and never finished;
    how many."""
    return await store.sweep_unfinished_files(now - ABANDONED_AFTER_MS)
