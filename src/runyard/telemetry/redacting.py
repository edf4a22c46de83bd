"""``RedactingTelemetry``: a ``Telemetry`` wrapper whose spans carry no secret.

runyard's server records no spans of its own; an embedder that gives an agent a telemetry
implementation (OpenTelemetry, Langfuse) wraps it so that span names, attributes and the errors
spans end with pass the redactor first.

Attributes are redacted lazily, as the wrapped telemetry reads them: most of them (every one,
when tracing is off) are never recorded, and redacting what nobody records was most of what a
run's telemetry cost.

It needs the redactor only as a type: ``runyard.redaction`` re-exports this module, so importing
the redactor at run time would make the two packages import each other.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from runyard.telemetry.hook import SpanKind, Telemetry, TelemetrySpan

if TYPE_CHECKING:
    from runyard.redaction.redactor import SecretRedactor

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
        redacted = _RedactedAttributes(attributes, self._redactor)
        span = self._inner.start_span(kind, self._redactor.redact(name), redacted)
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
            attributes = _RedactedAttributes(attributes, self._redactor)
        self._span.end(error=error, attributes=attributes)


class _RedactedAttributes(Mapping[str, object]):
    """``raw`` as the redactor would leave it, each key and value redacted when first read."""

    __slots__ = ("_keys", "_raw", "_read", "_redactor")

    def __init__(self, raw: Mapping[str, object], redactor: SecretRedactor) -> None:
        self._raw = raw
        self._redactor = redactor
        self._read: dict[str, object] = {}
        self._keys: dict[str, str] | None = None
        """Each redacted key's raw key, once the keys were iterated."""

    def __getitem__(self, key: str) -> object:
        if key in self._read:
            return self._read[key]
        raw_key = key if self._keys is None else self._keys.get(key, key)
        value = self._read[key] = self._redactor.redact_data(self._raw[raw_key])
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._raw or (self._keys is not None and key in self._keys)

    def __iter__(self) -> Iterator[str]:
        if self._keys is None:
            self._keys = {self._redactor.redact(key): key for key in self._raw}
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._raw)
