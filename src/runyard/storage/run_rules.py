"""The rules every backend applies the same way: which statuses each run operation accepts,
what a newly opened run and its opening events look like, and how long a lease lasts unless
told."""

from __future__ import annotations

from collections.abc import Sequence

from runyard.ids import now_ms
from runyard.storage.errors import RunQuotaReached
from runyard.storage.records import (
    OPEN_RUN_STATUSES,
    OpeningEvent,
    RunQuota,
    RunRecord,
    RunStatus,
    StoredEvent,
)

__all__ = [
    "DEFAULT_LEASE_MS",
    "RUNNING_OR_QUEUED",
    "check_close_status",
    "check_open_status",
    "check_quota",
    "lease_end",
    "new_run",
    "opening_events",
]

DEFAULT_LEASE_MS = 30_000
"""How long a lease taken without an explicit end lasts (``RUNYARD_LEASE_SECONDS``' default)."""


RUNNING_OR_QUEUED: tuple[RunStatus, ...] = ("queued", "running")
"""The statuses a quota of running runs counts: a queued run is about to run."""


def lease_end(until: int | None) -> int:
    """The expiry of a lease being taken: ``until``, else ``DEFAULT_LEASE_MS`` from now."""
    return until if until is not None else now_ms() + DEFAULT_LEASE_MS


def check_open_status(status: RunStatus) -> None:
    """``open_run`` and ``update_run_status`` take only open statuses."""
    if status not in OPEN_RUN_STATUSES:
        raise ValueError(f"an open run's status is {', '.join(OPEN_RUN_STATUSES)}, not {status!r}")


def check_close_status(status: RunStatus) -> None:
    """``close_run`` takes only final statuses."""
    if status in OPEN_RUN_STATUSES:
        raise ValueError(f"close_run needs a final status, not {status!r}")


def new_run(
    run_id: str,
    *,
    thread_id: str,
    tenant_id: str,
    owner: str,
    status: RunStatus,
    lease_until: int | None,
    agent_id: str | None,
) -> RunRecord:
    """The row ``open_run`` inserts: open, started now, leased to ``owner`` at epoch 1."""
    check_open_status(status)
    started = now_ms()
    until = lease_end(lease_until)
    return RunRecord(
        run_id, thread_id, tenant_id, status, owner, 1, None, started, None, until, agent_id
    )


def opening_events(
    run: RunRecord, log_end: int, opening: Sequence[OpeningEvent]
) -> tuple[StoredEvent, ...]:
    """``opening`` as ``start_run`` stores it: the run's, right above the log's end
    ``log_end``, stamped with the run's start."""
    return tuple(
        StoredEvent(run.thread_id, log_end + n, run.run_id, e.type, e.data, run.started_at)
        for n, e in enumerate(opening, 1)
    )


def check_quota(quota: RunQuota, *, tenant_running: int, agent_running: int) -> None:
    """``RunQuotaReached`` when one more running run would not fit ``quota`` (the tenant's
    limit is checked first)."""
    if quota.tenant_runs is not None and tenant_running >= quota.tenant_runs:
        raise RunQuotaReached("tenant", quota.tenant_runs)
    if quota.agent_runs is not None and agent_running >= quota.agent_runs:
        raise RunQuotaReached("agent", quota.agent_runs)
