"""Plans: the goal, phase and task list a thread's orchestrator keeps, as one typed document.

Stored through the store's plan row (a JSON document per thread); this module gives it a shape.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from runyard.runtime import MemoryScope
from runyard.storage import PlanTier

__all__ = ["Plan", "PlanIteration", "PlanPhase", "PlanStore", "PlanTask", "TaskStatus"]

TaskStatus = Literal["pending", "in_progress", "completed", "failed"]

PlanPhase = Literal["planning", "building", "executing", "inspecting", "done"]
"""Where a plan's work stands: the orchestrator's cycle (plan, build, execute, inspect), then done."""

PlanIteration = Annotated[int, Field(ge=0, strict=True)]
"""How many times a plan's work has gone round the cycle (a retry after a failed inspection):
a whole number from 0, never a bool or a string."""


class PlanTask(BaseModel):
    """One step of a plan."""

    model_config = ConfigDict(extra="forbid")

    id: str
    description: str
    status: TaskStatus = "pending"


class Plan(BaseModel):
    """A thread's execution plan: what it is for, where it stands, and its tasks."""

    model_config = ConfigDict(extra="forbid")

    goal: str
    phase: PlanPhase | None = None
    iteration: PlanIteration = 0
    tasks: list[PlanTask] = Field(default_factory=list)


class PlanStore:
    """Read and replace the plan of a thread, scoped to its owner."""

    def __init__(self, store: PlanTier) -> None:
        self._store = store

    async def get(self, scope: MemoryScope) -> Plan | None:
        """The thread's plan, or None when it has none (or belongs to someone else)."""
        row = await self._store.get_plan(
            scope.thread_id, tenant_id=scope.tenant_id, resource_id=scope.resource_id
        )
        return Plan.model_validate(row.data) if row is not None else None

    async def save(self, scope: MemoryScope, plan: Plan) -> Plan:
        """Replace the thread's plan; returns what was stored."""
        row = await self._store.save_plan(
            scope.thread_id,
            plan.model_dump(mode="json"),
            tenant_id=scope.tenant_id,
            resource_id=scope.resource_id,
        )
        return Plan.model_validate(row.data)
