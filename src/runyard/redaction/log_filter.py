"""Redacting log records: a ``logging.Filter`` for handlers, and where the server installs it.

A filter on a logger sees only records logged on that very logger, not those its children
propagate, so the filter goes on **handlers**: those of the root logger (where ``runyard.*``,
``httpx``, ``asyncpg``… records end up), of uvicorn's loggers (which do not propagate), and
``logging.lastResort`` (what prints a warning when no handler is configured, as in a bare
``runyard serve``). The record's message is formatted and redacted once, and its traceback is
formatted and redacted into ``exc_text``, which ``logging.Formatter`` prints instead of
formatting ``exc_info`` again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from runyard.redaction.redactor import SecretRedactor

__all__ = ["LOGGERS_WITH_HANDLERS", "RedactingLogFilter", "redacted_logs"]

LOGGERS_WITH_HANDLERS = ("", "runyard", "uvicorn", "uvicorn.error", "uvicorn.access")
"""The loggers whose handlers get the filter ("" is the root)."""

_DONE = "_runyard_redacted"
_TRACEBACKS = logging.Formatter()


class RedactingLogFilter(logging.Filter):
    """Rewrites each record's message, arguments and traceback with ``redactor``; drops none."""

    def __init__(self, redactor: SecretRedactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, _DONE, False):  # one record, several handlers
            return True
        self._redact_message(record)
        if record.exc_info and not record.exc_text:
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redactor.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redactor.redact(record.stack_info)
        setattr(record, _DONE, True)
        return True

    def _redact_message(self, record: logging.LogRecord) -> None:
        """Redact the arguments one by one, keeping the record's shape (uvicorn's access
        formatter unpacks ``args``); when that is not enough, the whole message, without args."""
        try:
            message = record.getMessage()
        except Exception:  # a malformed call: logging reports it itself
            return
        redacted = self.redactor.redact(message)
        if redacted is message:
            return
        if isinstance(record.msg, str):
            record.msg = self.redactor.redact(record.msg)
        record.args = self._redacted_args(record.args)
        try:
            clean = self.redactor.redact(again := record.getMessage()) is again
        except Exception:
            clean = False
        if not clean:
            record.msg, record.args = redacted, None

    def _redacted_args(
        self, args: tuple[object, ...] | Mapping[str, object] | None
    ) -> tuple[object, ...] | Mapping[str, object] | None:
        if isinstance(args, tuple):
            return tuple(self._redacted_arg(arg) for arg in args)
        if isinstance(args, Mapping):
            return {key: self._redacted_arg(value) for key, value in args.items()}
        return args

    def _redacted_arg(self, arg: object) -> object:
        text = arg if isinstance(arg, str) else str(arg)
        redacted = self.redactor.redact(text)
        return arg if redacted is text else redacted


@contextmanager
def redacted_logs(redactor: SecretRedactor) -> Iterator[RedactingLogFilter]:
    """Every handler of ``LOGGERS_WITH_HANDLERS`` and ``logging.lastResort`` redacts while the
    block runs (handlers added meanwhile to those loggers are not covered)."""
    log_filter = RedactingLogFilter(redactor)
    handlers = {h for name in LOGGERS_WITH_HANDLERS for h in logging.getLogger(name).handlers}
    if logging.lastResort is not None:
        handlers.add(logging.lastResort)
    for handler in handlers:
        handler.addFilter(log_filter)
    try:
        yield log_filter
    finally:
        for handler in handlers:
            handler.removeFilter(log_filter)
