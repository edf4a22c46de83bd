"""Secrets never leave: one redactor, applied where text leaves the process or is stored.

Logs (``redacted_logs``), HTTP error bodies, events, stored messages and checkpoints, and
telemetry spans (``RedactingTelemetry``, which lives with the telemetry hook in
``runyard.telemetry.redacting`` and is re-exported here) all pass the same ``SecretRedactor``
(docs/security.md, "What is redacted"). Imports nothing of runyard but its settings and that
wrapper.
"""

from runyard.redaction.hold_back import HoldBack, Replacement, substitute
from runyard.redaction.known_secrets import (
    SECRET_ENV_NAME,
    known_secrets,
    server_redactor,
    url_secrets,
)
from runyard.redaction.log_filter import LOGGERS_WITH_HANDLERS, RedactingLogFilter, redacted_logs
from runyard.redaction.redactor import (
    BUILTIN_SECRET_PATTERNS,
    MIN_SECRET_LENGTH,
    REDACTED,
    SHAPE_HOLD_CHARS,
    SecretRedactor,
)
from runyard.telemetry.redacting import RedactedError, RedactingTelemetry

__all__ = [
    "BUILTIN_SECRET_PATTERNS",
    "HoldBack",
    "LOGGERS_WITH_HANDLERS",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "SECRET_ENV_NAME",
    "SHAPE_HOLD_CHARS",
    "RedactedError",
    "RedactingLogFilter",
    "RedactingTelemetry",
    "Replacement",
    "SecretRedactor",
    "known_secrets",
    "redacted_logs",
    "server_redactor",
    "substitute",
    "url_secrets",
]
