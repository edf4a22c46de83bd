"""``task_status`` and ``await_task``: the orchestrator's view of its background sub-agents.

``delegate`` with ``background: true`` answers at once with a ``taskId``; these two tools let
the orchestrator poll a task (``task_status``) or wait for its result (``await_task``). Each
answers with the task's ``{taskId, role, agentId, status}`` and, once it ended, its ``result``
(and ``error``). A wait that times out answers with the task still ``running``; it never
cancels the task. They know the tasks of the current run segment (a resumed run starts with
none: a segment settles its tasks before it suspends).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from runyard.service.background.tasks import BackgroundTask, background_tasks
from runyard.tools import Tool, ToolContext, tool

__all__ = ["AWAIT_LIMIT_SECONDS", "await_task", "task_status"]

AWAIT_LIMIT_SECONDS = 600.0
"""The longest one ``await_task`` call waits."""


def _unknown(task_id: str) -> dict[str, Any]:
    return {"error": f"no background task {task_id!r} in this run"}


async def _task_status(ctx: ToolContext, task_id: str = "") -> dict[str, Any]:
    """See how your background tasks are doing, without waiting for them.

    Args:
        task_id: the id `delegate` gave you for one task; leave it empty to see every task.
    """
    tasks = background_tasks(ctx)
    if not task_id:
        return {"tasks": [task.to_json() for task in tasks.all()]}
    found = tasks.get(task_id)
    return found.to_json() if found is not None else _unknown(task_id)


async def _await_task(
    task_id: str,
    ctx: ToolContext,
    timeout_seconds: float = 120.0,
) -> dict[str, Any]:
    """Wait until a background task ends and get its result.

    Args:
        task_id: the id `delegate` gave you for the task.
        timeout_seconds: how long to wait at most (up to 600); the task keeps running if the
            wait times out.
    """
    tasks = background_tasks(ctx)
    found: BackgroundTask | None = tasks.get(task_id)
    if found is None:
        return _unknown(task_id)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(min(max(timeout_seconds, 0.0), AWAIT_LIMIT_SECONDS)):
            await tasks.wait(found)
    return found.to_json()


task_status: Tool = tool(name="task_status")(_task_status)
await_task: Tool = tool(name="await_task")(_await_task)
