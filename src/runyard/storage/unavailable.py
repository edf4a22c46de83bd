"""Whether a failure means the database is briefly away.

A restart, a fail-over or a dropped network link surfaces as a refused or reset connection, or
as PostgreSQL saying it is starting up or shutting down. Such a failure says nothing about the
write itself, so it is worth waiting out; a constraint violation, a ``StaleLease`` or a bad
statement is an answer, and retrying it would only repeat it.

``connection_failed`` judges a driver's error, by attributes the drivers set (SQLAlchemy's
``connection_invalidated``, a SQLSTATE), so this module loads no driver; the SQL engine turns
such an error into ``DatabaseUnavailable``. ``database_unavailable`` is what callers above
storage ask: whether a failure came from a ``DatabaseUnavailable``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from runyard.storage.errors import DatabaseUnavailable

__all__ = ["connection_failed", "database_unavailable"]

_SHUTTING_DOWN_OR_STARTING = frozenset({"57P01", "57P02", "57P03", "53300"})
"""admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections (the server is
full: no connection can be made, as when it is away); class 08 is "connection exception"."""


def database_unavailable(error: BaseException) -> bool:
    """True when ``error``, or an error it was raised from, is a ``DatabaseUnavailable``."""
    return _any_cause(error, lambda e: isinstance(e, DatabaseUnavailable))


def connection_failed(error: BaseException) -> bool:
    """True when the driver's ``error``, or an error it was raised from, means the connection
    to the database was lost or could not be made."""
    return _any_cause(error, _is_connection_failure)


def _any_cause(error: BaseException, test: Callable[[BaseException], bool]) -> bool:
    return any(test(e) for e in _causes(error))


def _causes(error: BaseException) -> Iterator[BaseException]:
    """``error`` and every error it was raised from or wraps (SQLAlchemy's ``orig``)."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        original = getattr(current, "orig", None)
        pending += [current.__cause__, current.__context__]
        pending.append(original if isinstance(original, BaseException) else None)


def _is_connection_failure(error: BaseException) -> bool:
    if isinstance(error, OSError) or getattr(error, "connection_invalidated", False):
        return True
    state = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
    return isinstance(state, str) and (
        state.startswith("08") or state in _SHUTTING_DOWN_OR_STARTING
    )
