"""``RunTelemetry``: what each run the server starts reports its spans to.

The server's ``ObservedTelemetry`` (traces, metrics, logs), bound to one run's labels (tenant,
agent, version, thread), behind the server's redactor (and, before it, a ``ContentGate``), so no
span, metric or tool log line holds a secret a tool or a model echoed. Without one, runs report
nothing. It takes plain labels, not the service's objects, so it sits at layer 0 beside the hook;
the service reads a run's labels in one place (``runyard.service.runs.telemetry_labels``).
"""

from __future__ import annotations

from runyard.redaction import SecretRedactor
from runyard.telemetry.content_gate import ContentGate
from runyard.telemetry.hook import NO_TELEMETRY, Telemetry
from runyard.telemetry.observed import ObservedTelemetry, RunLabels
from runyard.telemetry.redacting import RedactingTelemetry

__all__ = ["RunTelemetry"]


class RunTelemetry:
    """Telemetry per run: ``of`` labels and redacts ``observed`` (None: none at all)."""

    def __init__(
        self, observed: ObservedTelemetry | None = None, redactor: SecretRedactor | None = None
    ) -> None:
        self.observed = observed
        self.redactor = redactor or SecretRedactor()

    def of(self, labels: RunLabels) -> Telemetry:
        """The telemetry of one run segment, for the run these ``labels`` describe."""
        if self.observed is None:
            return NO_TELEMETRY
        bound = self.observed.bound(
            tenant=labels.tenant,
            agent=labels.agent,
            version=labels.version,
            thread_id=labels.thread_id,
            entry=labels.entry,
        )
        # Contents nobody records are dropped before the redactor, which they would cost most.
        return ContentGate(RedactingTelemetry(bound, self.redactor), bound.records_content)
