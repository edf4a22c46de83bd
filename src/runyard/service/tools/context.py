"""What the service hands its tools through ``ToolContext.deps`` (never through globals).

The run manager passes ``deps={SERVICE_DEPS: ServiceDeps(...)}`` to every run it starts, so the
orchestration tools find the store, the orchestrator agent and its id in the activity tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from runyard.errors import ToolError
from runyard.models import FileReader
from runyard.runtime import FileKeeper, MemoryScope
from runyard.service.agent_choice import AgentDirectory
from runyard.storage import Store
from runyard.tools import ToolContext

if TYPE_CHECKING:
    from runyard.agent import Agent

__all__ = ["SERVICE_DEPS", "ServiceDeps", "service_deps", "thread_scope"]

SERVICE_DEPS = "runyard.service"


@dataclass(frozen=True, slots=True)
class ServiceDeps:
    """The run's store, the orchestrator agent, its agent id, the thread the run serves, and
    the agents the service runs (``directory``: where ``delegate`` and ``agent`` find catalog
    agents; None outside a service).

    ``scope`` travels with the deps so a delegated sub-agent (stateless, with no thread of its
    own) still acts for the thread and user that asked; ``files`` and ``produced_files`` (the
    run's file store) so it reads stored files and keeps the large ones it produces as the
    run does.
    """

    store: Store
    agent: Agent
    agent_id: str
    scope: MemoryScope
    directory: AgentDirectory | None = None
    files: FileReader | None = None
    produced_files: FileKeeper | None = None


def service_deps(ctx: ToolContext) -> ServiceDeps:
    """The service's dependencies; a ``ToolError`` when the tool runs outside the service."""
    deps = ctx.deps.get(SERVICE_DEPS)
    if not isinstance(deps, ServiceDeps):
        raise ToolError(f"{ctx.tool_name} only runs inside the runyard service")
    return deps


def thread_scope(ctx: ToolContext) -> MemoryScope:
    """The thread and owner the call belongs to, also inside a delegated sub-agent."""
    if ctx.thread_id and ctx.resource_id:
        return MemoryScope(ctx.thread_id, ctx.resource_id, ctx.tenant_id or "default")
    deps = ctx.deps.get(SERVICE_DEPS)
    if isinstance(deps, ServiceDeps):
        return deps.scope
    raise ToolError(f"{ctx.tool_name} needs a run on a thread")
