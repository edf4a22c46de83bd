"""Telemetry: the hook a run reports its spans to, and what the server puts behind it (layer 0).

Importing the package gives only the hook (``hook``: ``Telemetry``, ``TelemetrySpan``,
``SpanKind``, ``NO_TELEMETRY``), which imports nothing of runyard: ``ToolContext`` (layer 1)
carries it and it is on the cold-start path of ``import runyard``, so nothing heavy is imported
here. The rest is imported by name: ``redacting`` (``RedactingTelemetry``, spans without
secrets) and ``run_telemetry`` (``RunTelemetry``, the server's telemetry bound to one run's
labels), ``observed`` (``ObservedTelemetry``, the implementation: OpenTelemetry spans, metrics
and logs over ``runyard.observability``) and ``content_gate`` (``ContentGate``, contents dropped
before anything pays for them while nothing records them).
"""

from runyard.telemetry.hook import NO_TELEMETRY, SpanKind, Telemetry, TelemetrySpan

__all__ = ["NO_TELEMETRY", "SpanKind", "Telemetry", "TelemetrySpan"]
