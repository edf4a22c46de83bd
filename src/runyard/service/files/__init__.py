"""Uploaded files as the service sees them: one caller's files (``StoredFiles``, which is also the
run manager's file reader), the store as tools' ``BinarySource`` (``StoredBinaries``), and the
sweep of uploads whose writer died."""

from runyard.service.files.abandoned import ABANDONED_AFTER_MS, sweep_abandoned_uploads
from runyard.service.files.binaries import StoredBinaries
from runyard.service.files.stored_files import StoredFiles, files_for

__all__ = [
    "ABANDONED_AFTER_MS",
    "StoredBinaries",
    "StoredFiles",
    "files_for",
    "sweep_abandoned_uploads",
]
