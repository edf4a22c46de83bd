"""``database_unavailable``: whether a failure means the database is briefly away.

A restart, a fail-over or a dropped network link surfaces as a refused or reset connection, or
as PostgreSQL saying it is starting up or shutting down. Such a failure says nothing about the
write itself, so it is worth waiting out; a constraint violation, a ``StaleLease`` or a bad
statement is an answer, and retrying it would only repeat it. Judged by attributes the drivers
set (SQLAlchemy's ``connection_invalidated``, a SQLSTATE), so this module loads no driver.
"""

from __future__ import annotations

__all__ = ["database_unavailable"]

_SHUTTING_DOWN_OR_STARTING = frozenset({"57P01", "57P02", "57P03"})
"""admin_shutdown, crash_shutdown, cannot_connect_now; class 08 is "connection exception"."""


def database_unavailable(error: BaseException) -> bool:
    """True when ``error``, or an error it was raised from, means the connection to the
    database was lost or could not be made."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if _is_connection_failure(current):
            return True
        pending += [current.__cause__, current.__context__, _original(current)]
    return False


def _is_connection_failure(error: BaseException) -> bool:
    if isinstance(error, OSError) or getattr(error, "connection_invalidated", False):
        return True
    state = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
    return isinstance(state, str) and (
        state.startswith("08") or state in _SHUTTING_DOWN_OR_STARTING
    )


def _original(error: BaseException) -> BaseException | None:
    """The driver's error a SQLAlchemy ``DBAPIError`` wraps (``orig``)."""
    original = getattr(error, "orig", None)
    return original if isinstance(original, BaseException) else None
