"""``ThreadStatus``: what ``GET /v1/threads/{threadId}/status`` reports about a thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ThreadStatus"]


@dataclass(frozen=True, slots=True)
class ThreadStatus:
    """``has_active_run``: a run is running now; ``is_suspended``: one waits for a confirmation.

    Sub-agents run in the foreground of their run, so a thread has no background tasks: the
    list in the JSON body is always empty (the seed's field is kept for clients).
    """

    has_active_run: bool
    is_suspended: bool
    run_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The camelCase body."""
        body: dict[str, Any] = {
            "hasActiveRun": self.has_active_run,
            "isSuspended": self.is_suspended,
            "backgroundTasks": [],
        }
        if self.run_id is not None:
            body["runId"] = self.run_id
        return body
