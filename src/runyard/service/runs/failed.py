"""The server's log line for a failed run: one per run, naming where the failure came from.

An operator reading the log must see, for every run that ended ``error``, which run, thread and
agent it was, and, when a model provider refused or could not be reached, which provider and
with which HTTP status. Clients get the same facts in the wire ``error`` event.
"""

from __future__ import annotations

import logging

from runyard.errors import RunError, RunLimitError
from runyard.models import ModelProviderError
from runyard.service.runs.active import ActiveRun

__all__ = ["log_failed_run"]

logger = logging.getLogger(__name__)


def log_failed_run(run: ActiveRun, reason: str | None, error: BaseException | None) -> None:
    """Log that ``run`` failed; a failure outside the ``RunError`` family keeps its traceback."""
    provider = status = None
    if isinstance(error, ModelProviderError):
        provider, status = error.provider, error.status_code
    unexpected = error is not None and not isinstance(error, RunError)
    said = reason or "the run failed"
    if isinstance(error, RunLimitError):  # the reason is the limit's name: add what happened
        said = f"{error.reason}: {error}"
    logger.error(
        "run %s failed: thread=%s agent=%s provider=%s status=%s: %s",
        run.run_id,
        run.thread_id,
        run.agent.name,
        provider or "-",
        status or "-",
        said,
        exc_info=error if unexpected else None,
    )
