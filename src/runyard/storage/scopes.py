"""Memory-scope arguments, checked the same way by every backend."""

from __future__ import annotations

from runyard.storage.records import MemoryScope

__all__ = ["thread_key"]


def thread_key(scope: MemoryScope, thread_id: str | None) -> str:
    """The thread id a scoped row is keyed by: the thread for ``thread`` scope, "" for ``resource``."""
    if scope == "resource":
        return ""
    if scope != "thread":
        raise ValueError(f"memory scope must be 'thread' or 'resource', not {scope!r}")
    if not thread_id:
        raise ValueError('scope "thread" needs a thread_id')
    return thread_id
