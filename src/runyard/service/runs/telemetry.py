"""``RunTelemetry``: what each run the service starts reports its spans to.

The server's ``ObservedTelemetry`` (traces, metrics, logs), bound to the run's tenant, agent,
version and thread, behind the server's redactor (and, before it, a ``ContentGate``), so no span, metric or tool log line holds a
secret a tool or a model echoed. Without one, runs report nothing.
"""

from __future__ import annotations

from runyard.observability import ContentGate, ObservedTelemetry
from runyard.redaction import RedactingTelemetry, SecretRedactor
from runyard.service.agent_choice import AgentChoice
from runyard.service.runs.active import ActiveRun
from runyard.telemetry import NO_TELEMETRY, Telemetry

__all__ = ["RunTelemetry"]


class RunTelemetry:
    """Telemetry per run: ``of`` labels and redacts ``observed`` (None: none at all)."""

    def __init__(
        self, observed: ObservedTelemetry | None = None, redactor: SecretRedactor | None = None
    ) -> None:
        self.observed = observed
        self.redactor = redactor or SecretRedactor()

    def of(self, run: ActiveRun, choice: AgentChoice | None) -> Telemetry:
        """The telemetry of ``run``'s segment, on the agent ``choice`` names (None: unknown)."""
        if self.observed is None:
            return NO_TELEMETRY
        bound = self.observed.bound(
            tenant=run.owner.tenant_id,
            agent=choice.agent_id if choice is not None else run.agent.name,
            version=(choice.version if choice is not None else None) or "",
            thread_id=run.owner.thread_id_of(run.thread_id),
        )
        # Contents nobody records are dropped before the redactor, which they would cost most.
        return ContentGate(RedactingTelemetry(bound, self.redactor), bound.records_content)
