"""``RedactingTelemetry``: span names, attributes and errors reach the wrapped telemetry
redacted, and children nest as before."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from runyard.redaction import REDACTED, RedactedError, RedactingTelemetry, SecretRedactor
from runyard.telemetry import SpanKind, TelemetrySpan

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
