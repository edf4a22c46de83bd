"""``RedactingTelemetry``: a ``Telemetry`` wrapper whose spans carry no secret.

runyard's server records no spans of its own; an embedder that gives an agent a telemetry
implementation (OpenTelemetry, Langfuse) wraps it so that span names, attributes and the errors
spans end with pass the redactor first.
"""

from __future__ import annotations

from collections.abc import Mapping

from runyard.redaction.redactor import SecretRedactor
from runyard.telemetry import SpanKind, Telemetry, TelemetrySpan

__all__ = ["RedactedError", "RedactingTelemetry"]


class RedactedError(Exception):
    """Stands in for an exception whose text held a secret; its message is the redacted text."""


class RedactingTelemetry:
    """Starts the wrapped telemetry's spans with redacted names and attributes."""

    def __init__(self, inner: Telemetry, redactor: SecretRedactor) -> None:
        self._inner = inner
        self._redactor = redactor

    def start_span(
        self, kind: SpanKind, name: str, attributes: Mapping[str, object]
    ) -> TelemetrySpan:
        span = self._inner.start_span(
            kind, self._redactor.redact(name), self._redactor.redact_data(dict(attributes))
        )
        return _RedactingSpan(span, self._redactor)


class _RedactingSpan(RedactingTelemetry):
    def __init__(self, inner: TelemetrySpan, redactor: SecretRedactor) -> None:
        super().__init__(inner, redactor)
        self._span = inner

    def end(
        self,
        *,
        error: BaseException | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> None:
        if error is not None:
            text = str(error)
            redacted = self._redactor.redact(text)
            if redacted != text:
                error = RedactedError(f"{type(error).__name__}: {redacted}")
        if attributes is not None:
            attributes = self._redactor.redact_data(dict(attributes))
        self._span.end(error=error, attributes=attributes)
