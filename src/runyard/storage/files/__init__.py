"""What every backend's ``Files`` part shares: the bytes seam (``FileBytes``) with its in-memory
and directory backends, the sniffer, and the measuring stream a write goes through."""

from runyard.storage.files.directory import DirectoryFileBytes
from runyard.storage.files.file_bytes import CHUNK_BYTES, FileBytes, MemoryFileBytes
from runyard.storage.files.sniffing import MediaSniffer, sniff_media_type
from runyard.storage.files.streaming import StreamedFiles

__all__ = [
    "CHUNK_BYTES",
    "DirectoryFileBytes",
    "FileBytes",
    "StreamedFiles",
    "MediaSniffer",
    "MemoryFileBytes",
    "sniff_media_type",
]
