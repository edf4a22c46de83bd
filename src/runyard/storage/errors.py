"""Storage's exceptions: every backend raises these, never a driver's own error for a known case."""

from __future__ import annotations

from typing import Literal

__all__ = [
    "ApiKeyConflict",
    "DatabaseUnavailable",
    "EventIdConflict",
    "FileQuotaExceeded",
    "FileTooLarge",
    "InvalidDatabaseURL",
    "RunConflict",
    "RunNotFound",
    "RunQuotaReached",
    "StaleLease",
    "StorageError",
    "ThreadOwnershipError",
]


class StorageError(Exception):
    """Base class of storage failures."""


class DatabaseUnavailable(StorageError):
    """The database could not be reached, or the connection was lost mid-transaction (which
    may have committed): a restart, a fail-over, a dropped link. Worth trying again later;
    ``database_unavailable`` tells it, and the driver's error it was raised from."""


class InvalidDatabaseURL(StorageError, ValueError):
    """The database URL names no backend runyard knows."""


class ThreadOwnershipError(StorageError):
    """A write addressed a thread that belongs to another tenant or user; nothing was changed."""


class RunConflict(StorageError):
    """The thread already has an open (running or suspended) run."""

    def __init__(self, thread_id: str) -> None:
        super().__init__(f"thread {thread_id!r} already has an open run")
        self.thread_id = thread_id


class RunQuotaReached(StorageError):
    """A ``RunQuota`` is full: as many runs of the tenant (``scope`` ``"tenant"``), or of its runs
    of the agent (``"agent"``), are running as ``limit`` allows; no run was opened."""

    def __init__(self, scope: Literal["tenant", "agent"], limit: int) -> None:
        super().__init__(f"the {scope}'s quota of {limit} running runs is full")
        self.scope = scope
        self.limit = limit


class RunNotFound(StorageError, LookupError):
    """No run has this id."""


class StaleLease(StorageError):
    """A write came from a lease epoch that has since been superseded (or the run is closed)."""


class EventIdConflict(StorageError):
    """An appended event reused an id already in the thread's log; the whole batch was rejected."""


class ApiKeyConflict(StorageError):
    """A new API key reused the id of a stored one; the stored key is unchanged."""

    def __init__(self, key_id: str) -> None:
        super().__init__(f"an API key with id {key_id!r} already exists")
        self.key_id = key_id


class FileTooLarge(StorageError):
    """A file grew past the size limit its writer set; nothing of it was kept."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the file is larger than the limit of {limit} bytes")
        self.limit = limit


class FileQuotaExceeded(StorageError):
    """A file would take its tenant's stored bytes past the tenant's quota; nothing of it was
    kept."""

    def __init__(self, quota: int, used: int) -> None:
        super().__init__(
            f"the tenant's file quota of {quota} bytes is full ({used} bytes are stored)"
        )
        self.quota = quota
        self.used = used
