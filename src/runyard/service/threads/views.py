"""``ThreadStatus``: what ``GET /v1/threads/{threadId}/status`` reports about a thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from runyard.service.background.status import BackgroundTaskView

__all__ = ["ThreadStatus"]


@dataclass(frozen=True, slots=True)
class ThreadStatus:
    """``has_active_run``: a run is running now; ``is_suspended``: one waits for a confirmation.

    ``background_tasks``: the sub-agents the open run started with ``delegate(background=true)``,
    running or ended; none once the run is over. ``entry``: how the open run came in.
    """

    has_active_run: bool
    is_suspended: bool
    run_id: str | None = None
    background_tasks: tuple[BackgroundTaskView, ...] = ()
    entry: str | None = None
    """How the open run came in (``RunEntry``); None without one, or for a run on a thread from
    before entries were kept."""

    def to_json(self) -> dict[str, Any]:
        """The camelCase body."""
        body: dict[str, Any] = {
            "hasActiveRun": self.has_active_run,
            "isSuspended": self.is_suspended,
            "backgroundTasks": [task.to_json() for task in self.background_tasks],
        }
        if self.run_id is not None:
            body["runId"] = self.run_id
        if self.entry is not None:
            body["entry"] = self.entry
        return body
