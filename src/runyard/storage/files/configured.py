"""Where the settings put uploaded files' bytes: a directory (``RUNYARD_FILES_DIR``), an
S3-compatible bucket (``RUNYARD_FILES_S3_BUCKET``), or — neither set — the database."""

from __future__ import annotations

from pathlib import Path

from runyard.config import Settings
from runyard.storage.files.directory import DirectoryFileBytes
from runyard.storage.files.file_bytes import FileBytes
from runyard.storage.files.s3 import S3FileBytes

__all__ = ["configured_file_bytes"]


def configured_file_bytes(settings: Settings) -> FileBytes | None:
    """The bytes backend ``settings`` name; None for the database's own (the store makes it).
    Both a directory and a bucket is a ``ValueError`` naming the two settings."""
    if settings.files_dir and settings.files_s3_bucket:
        raise ValueError("set RUNYARD_FILES_DIR or RUNYARD_FILES_S3_BUCKET, not both")
    if settings.files_dir:
        return DirectoryFileBytes(Path(settings.files_dir))
    if settings.files_s3_bucket:
        return S3FileBytes(
            settings.files_s3_bucket,
            endpoint_url=settings.files_s3_endpoint or None,
            region=settings.files_s3_region or None,
        )
    return None
