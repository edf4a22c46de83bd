"""``telemetry_labels``: the one place the service says which labels a run's telemetry carries.

``RunTelemetry`` (``runyard.telemetry``, layer 0) knows nothing of the service; every segment
(a first stream, a resume, a recovered run) asks it for telemetry with these labels.
"""

from __future__ import annotations

from runyard.service.agent_choice import AgentChoice
from runyard.service.runs.active import ActiveRun
from runyard.telemetry.observed import RunLabels

__all__ = ["telemetry_labels"]


def telemetry_labels(run: ActiveRun, choice: AgentChoice | None) -> RunLabels:
    """``run``'s tenant, agent, version, thread and entry, on the agent ``choice`` names (None:
    unknown)."""
    return RunLabels(
        tenant=run.owner.tenant_id,
        agent=choice.agent_id if choice is not None else run.agent.name,
        version=(choice.version if choice is not None else None) or "",
        thread_id=run.owner.thread_id_of(run.thread_id),
        entry=(choice.entry if choice is not None else None) or "",
    )
