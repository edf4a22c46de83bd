"""Which run statuses each run operation accepts, checked the same way by every backend."""

from __future__ import annotations

from runyard.storage.records import OPEN_RUN_STATUSES, RunStatus

__all__ = ["check_close_status", "check_open_status"]


def check_open_status(status: RunStatus) -> None:
    """``open_run`` and ``update_run_status`` take only open statuses."""
    if status not in OPEN_RUN_STATUSES:
        raise ValueError(f"an open run's status is running or suspended, not {status!r}")


def check_close_status(status: RunStatus) -> None:
    """``close_run`` takes only final statuses."""
    if status in OPEN_RUN_STATUSES:
        raise ValueError(f"close_run needs a final status, not {status!r}")
