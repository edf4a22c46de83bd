"""The limits a new run must fit: its agent's (from the catalog) and its tenant's (from settings).

``requests_per_minute`` counts new runs in a sliding minute (``RequestRate``);
``concurrent_runs`` counts runs *running* now, in the runs ledger, as the run is opened
(``RunQuota``). Both are shared by every replica on one database. Answering a confirmation
carries a run on and is never limited, so a run waiting for an approval can always finish.
"""

from __future__ import annotations

from dataclasses import dataclass

from runyard.config import Settings
from runyard.storage import RunQuota

__all__ = ["CONCURRENT_RUNS_RETRY_AFTER", "AgentLimits", "TenantLimits", "run_quota"]

CONCURRENT_RUNS_RETRY_AFTER = 5
"""The ``Retry-After`` (seconds) of a refusal for concurrent runs: nobody knows when a running
run ends, so the client is told to look again soon rather than when."""


@dataclass(frozen=True, slots=True)
class AgentLimits:
    """How many new runs of an agent one tenant may start per minute, and have running at
    once (None: no limit)."""

    requests_per_minute: int | None = None
    concurrent_runs: int | None = None


@dataclass(frozen=True, slots=True)
class TenantLimits:
    """The same two limits over all of a tenant's agents together (None: no limit)."""

    requests_per_minute: int | None = None
    concurrent_runs: int | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> TenantLimits:
        """``RUNYARD_TENANT_REQUESTS_PER_MINUTE`` and ``RUNYARD_TENANT_CONCURRENT_RUNS`` (0: no
        limit)."""
        return cls(
            settings.tenant_requests_per_minute or None, settings.tenant_concurrent_runs or None
        )


def run_quota(agent: AgentLimits, tenant: TenantLimits) -> RunQuota | None:
    """The quota of running runs a new run is opened under; None when there is none."""
    if agent.concurrent_runs is None and tenant.concurrent_runs is None:
        return None
    return RunQuota(tenant_runs=tenant.concurrent_runs, agent_runs=agent.concurrent_runs)
