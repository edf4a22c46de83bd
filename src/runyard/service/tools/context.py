"""What the service hands its tools through ``ToolContext.deps`` (never through globals).

The run manager passes ``deps={SERVICE_DEPS: ServiceDeps(...)}`` to every run it starts, so the
orchestration tools find the store, the orchestrator agent and its id in the activity tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from runyard.errors import ToolError
from runyard.runtime import MemoryScope
from runyard.storage import Store
from runyard.tools import ToolContext

if TYPE_CHECKING:
    from runyard.agent import Agent

__all__ = ["SERVICE_DEPS", "ServiceDeps", "service_deps", "thread_scope"]

SERVICE_DEPS = "runyard.service"


@dataclass(frozen=True, slots=True)
class ServiceDeps:
    """The run's store, the orchestrator agent, and the orchestrator's agent id."""

    store: Store
    agent: Agent
    agent_id: str


def service_deps(ctx: ToolContext) -> ServiceDeps:
    """The service's dependencies; a ``ToolError`` when the tool runs outside the service."""
    deps = ctx.deps.get(SERVICE_DEPS)
    if not isinstance(deps, ServiceDeps):
        raise ToolError(f"{ctx.tool_name} only runs inside the runyard service")
    return deps


def thread_scope(ctx: ToolContext) -> MemoryScope:
    """The thread and owner the call belongs to; a ``ToolError`` for a run without a thread."""
    if not (ctx.thread_id and ctx.resource_id):
        raise ToolError(f"{ctx.tool_name} needs a run on a thread")
    return MemoryScope(ctx.thread_id, ctx.resource_id, ctx.tenant_id or "default")
