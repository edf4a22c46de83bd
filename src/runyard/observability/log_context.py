"""The ids a log line carries: request, tenant, agent, thread, run, trace — in context variables.

The HTTP middleware binds the request id; a run binds its tenant, agent, thread, run and trace
ids when its span starts. ``LogContextFilter`` copies them onto every record, so the JSON lines
(``JsonFormatter``) and a text format that asks for them can be joined with spans and metrics.
A run's task inherits the request's context, so the run's lines keep the request id too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from contextvars import ContextVar, Token
from types import MappingProxyType

__all__ = ["LOG_FIELDS", "LogContextFilter", "bind_log_context", "log_context"]

LOG_FIELDS = (
    "request_id",
    "tenant",
    "agent",
    "agent_instance_id",
    "thread_id",
    "run_id",
    "trace_id",
)
"""The context fields of every record (None when unbound)."""

_EMPTY: Mapping[str, str] = MappingProxyType({})
_context: ContextVar[Mapping[str, str]] = ContextVar("runyard_log_context", default=_EMPTY)


def log_context() -> Mapping[str, str]:
    """The fields bound in the current context."""
    return _context.get()


def bind(fields: Mapping[str, str | None]) -> Token[Mapping[str, str]]:
    """Bind ``fields`` (None values are skipped) on top of the current ones; reset with the
    token, in the same context."""
    bound = {k: v for k, v in fields.items() if v is not None}
    return _context.set({**_context.get(), **bound})


def unbind(token: Token[Mapping[str, str]]) -> None:
    """Undo a ``bind``; a no-op when called from another context than the bind's."""
    # A span ended in another task than it started: that context is gone already.
    with suppress(ValueError):
        _context.reset(token)


@contextmanager
def bind_log_context(**fields: str | None) -> Iterator[None]:
    """Bind ``fields`` while the block runs."""
    token = bind(fields)
    try:
        yield
    finally:
        unbind(token)


class LogContextFilter(logging.Filter):
    """Sets every ``LOG_FIELDS`` attribute of a record from the context (None when unbound)."""

    def filter(self, record: logging.LogRecord) -> bool:
        bound = _context.get()
        for name in LOG_FIELDS:
            if not hasattr(record, name):
                setattr(record, name, bound.get(name))
        return True
