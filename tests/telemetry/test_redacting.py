"""``RedactingTelemetry``: span names, attributes and errors reach the wrapped telemetry
redacted, and children nest as before."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from runyard.redaction import REDACTED, SecretRedactor
from runyard.telemetry import SpanKind, TelemetrySpan
from runyard.telemetry.redacting import RedactedError, RedactingTelemetry

SECRET = "sk-live-canary-0123456789abcdef"


@dataclass
class Recorded:
    """A telemetry that keeps every span it was given."""

    name: str = "root"
    attributes: dict[str, object] = field(default_factory=dict)
    children: list[Recorded] = field(default_factory=list)
    ended: tuple[BaseException | None, Mapping[str, object] | None] | None = None

    def start_span(
        self, kind: SpanKind, name: str, attributes: Mapping[str, object]
    ) -> TelemetrySpan:
        child = Recorded(name, dict(attributes))
        self.children.append(child)
        return child

    def end(
        self,
        *,
        error: BaseException | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> None:
        self.ended = (error, attributes)


def test_spans_carry_no_secret() -> None:
    recorded = Recorded()
    telemetry = RedactingTelemetry(recorded, SecretRedactor([SECRET]))
    run = telemetry.start_span("run", "run", {"input": f"use {SECRET}"})
    tool = run.start_span("tool", "http", {"args": {"headers": [SECRET]}})
    tool.end(error=ValueError(f"bad {SECRET}"), attributes={"output": SECRET})
    run.end()

    [run_span] = recorded.children
    [tool_span] = run_span.children
    assert run_span.attributes == {"input": f"use {REDACTED}"}
    assert tool_span.attributes == {"args": {"headers": [REDACTED]}}
    assert tool_span.ended is not None
    error, attributes = tool_span.ended
    assert isinstance(error, RedactedError)
    assert str(error) == f"ValueError: bad {REDACTED}"
    assert attributes == {"output": REDACTED}
    assert run_span.ended == (None, None)


class CountingRedactor(SecretRedactor):
    """A redactor that remembers every text it was asked to redact."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__(secrets)
        self.seen: list[str] = []

    def redact(self, text: str) -> str:
        self.seen.append(text)
        return super().redact(text)


@dataclass
class ReadsRunId:
    """A telemetry that records only the ``run_id`` of a span (as metrics with tracing off)."""

    run_ids: list[object] = field(default_factory=list)

    def start_span(
        self, kind: SpanKind, name: str, attributes: Mapping[str, object]
    ) -> TelemetrySpan:
        self.run_ids.append(attributes.get("run_id"))
        return self

    def end(
        self,
        *,
        error: BaseException | None = None,
        attributes: Mapping[str, object] | None = None,
    ) -> None:
        return None


def test_only_the_attributes_the_telemetry_reads_are_redacted() -> None:
    redactor = CountingRedactor([SECRET])
    reads = ReadsRunId()
    span = RedactingTelemetry(reads, redactor).start_span(
        "tool", "lookup", {"run_id": f"run-{SECRET}", "output_text": f"long text {SECRET}"}
    )
    span.end(attributes={"result": f"result {SECRET}"})

    assert reads.run_ids == [f"run-{REDACTED}"]
    assert not [text for text in redactor.seen if "text" in text or "result" in text]
