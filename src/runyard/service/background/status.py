"""The background tasks of a thread's open run, folded from its stored events.

``GET /v1/threads/{id}/status`` lists them (the seed's ``backgroundTasks``). They come from the
event log, not from the memory of the process that runs them, so a page reload, another replica
or a restarted server reports the same: a task is its ``agent-spawned`` with a ``taskId``, and it
runs until that sub-agent's ``agent-completed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from runyard.protocol import parse_event
from runyard.storage import EventLogStore, StoredEvent

__all__ = ["BackgroundTaskView", "TaskStatus", "fold_background_tasks", "read_background_tasks"]

TaskStatus = Literal["running", "completed", "error", "cancelled"]
"""A background task's state: ``running`` until its sub-agent's ``agent-completed``."""

_SLICE = 500
"""How many events one store read covers while the log is read back to the run's start."""


@dataclass(frozen=True, slots=True)
class BackgroundTaskView:
    """One background task as ``/status`` shows it; ``started_at`` is epoch milliseconds."""

    task_id: str
    role: str
    agent_id: str
    status: TaskStatus
    started_at: int

    def to_json(self) -> dict[str, Any]:
        """The camelCase entry of ``backgroundTasks``."""
        return {
            "taskId": self.task_id,
            "role": self.role,
            "agentId": self.agent_id,
            "status": self.status,
            "startedAt": self.started_at,
        }


async def read_background_tasks(
    store: EventLogStore, thread_id: str, run_id: str
) -> list[BackgroundTaskView]:
    """The background tasks of the run ``run_id``, in the order they started."""
    return fold_background_tasks(await _run_events(store, thread_id, run_id))


def fold_background_tasks(events: list[StoredEvent]) -> list[BackgroundTaskView]:
    """Fold a run's stored events into its background tasks."""
    tasks: dict[str, BackgroundTaskView] = {}
    for stored in events:
        if stored.type not in ("agent-spawned", "agent-completed"):
            continue
        event = parse_event(stored.data)
        if event.type == "agent-spawned" and event.payload.task_id is not None:
            tasks[event.agent_id] = BackgroundTaskView(
                event.payload.task_id,
                event.payload.role,
                event.agent_id,
                "running",
                stored.created_at,
            )
        elif event.type == "agent-completed" and event.agent_id in tasks:
            started = tasks[event.agent_id]
            tasks[event.agent_id] = BackgroundTaskView(
                started.task_id,
                started.role,
                started.agent_id,
                event.payload.outcome,
                started.started_at,
            )
    return list(tasks.values())


async def _run_events(store: EventLogStore, thread_id: str, run_id: str) -> list[StoredEvent]:
    """The run's events, read back from the end of the log in slices until its ``run-start``:
    what a call costs grows with the run, not with the thread's history."""
    found: list[StoredEvent] = []
    high = await store.last_event_id(thread_id)
    while high > 0:
        low = max(high - _SLICE, 0)
        batch = await store.read_events(thread_id, after_id=low, limit=high - low)
        mine = [e for e in batch if e.id <= high and e.run_id == run_id]
        found[:0] = mine
        if any(e.type == "run-start" for e in mine):
            break
        high = low
    return found
