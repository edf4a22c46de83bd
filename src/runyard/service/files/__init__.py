"""Uploaded files as the service sees them: one caller's files (``StoredFiles``, which is also the
run manager's file reader), and the store as tools' ``BinarySource`` (``StoredBinaries``)."""

from runyard.service.files.binaries import StoredBinaries
from runyard.service.files.stored_files import StoredFiles

__all__ = ["StoredBinaries", "StoredFiles"]
