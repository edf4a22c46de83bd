"""``plan``: the orchestrator's task checklist — stored per thread, shown live as ``tasks-update``.

Each call replaces the whole list (status ``pending``, ``in_progress``, ``completed`` or
``failed``); the stored plan is what the tool returns.
"""

from __future__ import annotations

from typing import Any

from runyard.memory import Plan, PlanStore, PlanTask
from runyard.protocol import TaskItem, TasksUpdateEvent, TasksUpdatePayload
from runyard.service.event_log.chunks import WireToolEvent
from runyard.service.tools.context import service_deps, thread_scope
from runyard.tools import Tool, ToolContext, tool

__all__ = ["plan", "tasks_update"]


def tasks_update(run_id: str, agent_id: str, stored: Plan) -> TasksUpdateEvent:
    """The ``tasks-update`` event showing ``stored``'s tasks."""
    items = [TaskItem(id=t.id, description=t.description, status=t.status) for t in stored.tasks]
    return TasksUpdateEvent(
        run_id=run_id, agent_id=agent_id, payload=TasksUpdatePayload(tasks=items)
    )


async def _plan(goal: str, tasks: list[PlanTask], ctx: ToolContext) -> dict[str, Any]:
    """Write down (or rewrite) the plan for the user's request as a checklist of tasks.

    Call it again whenever a task changes status; each call replaces the whole list.

    Args:
        goal: what the plan achieves, in one sentence.
        tasks: every task, each {"id", "description", "status"} with status pending,
            in_progress, completed or failed.
    """
    deps = service_deps(ctx)
    stored = await PlanStore(deps.store).save(thread_scope(ctx), Plan(goal=goal, tasks=tasks))
    ctx.emit(WireToolEvent(tasks_update(ctx.run_id, deps.agent_id, stored)))
    return stored.model_dump(mode="json", include={"goal", "tasks"})


plan: Tool = tool(name="plan")(_plan)
