"""``catalog_sub_agent``: the catalog agent a tool call hands work to, for the run's tenant.

The agent is looked up when the call runs, not when the tool is built: an agent's tools are
built once per version and shared by every tenant, while ``bookkeeper`` means the tenant's own
``bookkeeper`` when it has one (as routing reads ids), and two agents may name each other.
"""

from __future__ import annotations

from collections.abc import Sequence

from runyard.agent import Agent
from runyard.errors import ToolError
from runyard.service.agent_choice import AgentRequest
from runyard.service.errors import AgentVersionUnavailable, UnknownAgent
from runyard.service.tools.context import service_deps, thread_scope
from runyard.tools import ToolContext

__all__ = ["catalog_sub_agent"]


async def catalog_sub_agent(ctx: ToolContext, agent_id: str, allowed: Sequence[str]) -> Agent:
    """The agent ``agent_id`` of the run's tenant; a ``ToolError`` when it is not ``allowed``
    (the calling agent's ``sub_agents``) or the tenant has no such agent."""
    if agent_id not in allowed:
        listed = ", ".join(allowed) or "none"
        raise ToolError(f"{agent_id!r} is not one of this agent's sub-agents ({listed})")
    directory = service_deps(ctx).directory
    if directory is None:
        raise ToolError(f"{ctx.tool_name} needs the service's catalog of agents")
    scope = thread_scope(ctx)
    try:
        choice = directory.choose(scope.tenant_id, scope.resource_id, AgentRequest(agent_id), None)
        return await directory.agent(scope.tenant_id, choice)
    except (UnknownAgent, AgentVersionUnavailable) as exc:
        raise ToolError(str(exc)) from exc
