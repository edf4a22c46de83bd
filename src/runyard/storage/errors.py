"""Storage's exceptions: every backend raises these, never a driver's own error for a known case."""

from __future__ import annotations

__all__ = [
    "ApiKeyConflict",
    "EventIdConflict",
    "InvalidDatabaseURL",
    "RunConflict",
    "RunNotFound",
    "StaleLease",
    "StorageError",
    "ThreadOwnershipError",
]


class StorageError(Exception):
    """Base class of storage failures."""


class InvalidDatabaseURL(StorageError, ValueError):
    """The database URL names no backend runyard knows."""


class ThreadOwnershipError(StorageError):
    """A write addressed a thread that belongs to another tenant or user; nothing was changed."""


class RunConflict(StorageError):
    """The thread already has an open (running or suspended) run."""

    def __init__(self, thread_id: str) -> None:
        super().__init__(f"thread {thread_id!r} already has an open run")
        self.thread_id = thread_id


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
