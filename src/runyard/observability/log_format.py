"""Log output: one JSON object per line, or text for people; chosen by ``RUNYARD_LOG_FORMAT``.

``auto`` (the default) writes text to a terminal and JSON anywhere else (a container, a file, a
pipe to a log shipper), because whatever reads a non-terminal is usually a machine.
``configure_logging`` installs one handler on the root logger with the chosen formatter and the
``LogContextFilter``; the redaction filter goes on the same handler (``runyard.redaction``).
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Literal, TextIO

from runyard.observability.log_context import LOG_FIELDS, LogContextFilter

__all__ = ["LogFormat", "JsonFormatter", "configure_logging", "resolve_format"]

LogFormat = Literal["auto", "json", "text"]

_TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_RECORD_ATTRS = frozenset(vars(logging.makeLogRecord({}))) | {
    "message",
    "asctime",
    "color_message",  # uvicorn's ANSI-coloured twin of the message
}
"""Attributes every record has; anything else on a record came in ``extra=``."""


class JsonFormatter(logging.Formatter):
    """``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``, the context ids, the
    ``extra=`` fields, and ``exception`` (the formatted traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in LOG_FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        for name, value in vars(record).items():
            if name not in _RECORD_ATTRS and name not in LOG_FIELDS and not name.startswith("_"):
                line[name] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, default=str, ensure_ascii=False)


def resolve_format(requested: LogFormat, stream: TextIO) -> Literal["json", "text"]:
    """``requested``, with ``auto`` decided by whether ``stream`` is a terminal."""
    if requested != "auto":
        return requested
    isatty = getattr(stream, "isatty", None)
    return "text" if isatty is not None and isatty() else "json"


def configure_logging(
    requested: LogFormat = "auto", *, level: int = logging.INFO, stream: TextIO | None = None
) -> logging.Handler:
    """Replace the root logger's handlers by one writing ``stream`` (default stderr) in the
    chosen format; the handler, for filters to be added to."""
    out = stream or sys.stderr
    handler = logging.StreamHandler(out)
    chosen = resolve_format(requested, out)
    handler.setFormatter(JsonFormatter() if chosen == "json" else logging.Formatter(_TEXT))
    handler.addFilter(LogContextFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler
