"""``plan``: the orchestrator's task checklist — stored per thread, shown live as ``tasks-update``.

Each call replaces the whole list (status ``pending``, ``in_progress``, ``completed`` or
``failed``) and may move the plan's ``phase`` and ``iteration``; one it leaves out keeps its stored
value, so a status update does not reset where the work stands. The stored plan is what the tool
returns. Arguments outside the plan model (an unknown phase, a negative or non-integer iteration)
fail the tool's input validation: a tool error naming the field, nothing stored.
"""

from __future__ import annotations

from typing import Any

from runyard.memory import Plan, PlanIteration, PlanPhase, PlanStore, PlanTask
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


async def _plan(
    goal: str,
    tasks: list[PlanTask],
    ctx: ToolContext,
    phase: PlanPhase | None = None,
    iteration: PlanIteration | None = None,
) -> dict[str, Any]:
    """Write down (or rewrite) the plan for the user's request as a checklist of tasks.

    Call it again whenever a task changes status; each call replaces the whole list.

    Args:
        goal: what the plan achieves, in one sentence.
        tasks: every task, each {"id", "description", "status"} with status pending,
            in_progress, completed or failed.
        phase: where the work stands: planning, building, executing, inspecting or done.
            Left out, it stays as it was.
        iteration: how many times the work has gone round (0 at first; add 1 when you start
            again after a failed attempt). Left out, it stays as it was.
    """
    deps = service_deps(ctx)
    plans, scope = PlanStore(deps.store), thread_scope(ctx)
    before = await plans.get(scope) or Plan(goal=goal)
    plan = Plan(
        goal=goal,
        tasks=tasks,
        phase=phase or before.phase,
        iteration=before.iteration if iteration is None else iteration,
    )
    stored = await plans.save(scope, plan)
    ctx.emit(WireToolEvent(tasks_update(ctx.run_id, deps.agent_id, stored)))
    return stored.model_dump(mode="json")


plan: Tool = tool(name="plan")(_plan)
