"""The ``agent`` tool factory: another catalog agent offered as one tool.

Parameters: ``agent`` (required: a catalog agent the calling agent lists in its ``sub_agents``,
so the loader has checked it exists) and ``description`` (what the model is told; a default
names the agent). The model calls it with ``{"input": "..."}``; the agent the run's tenant has
under that id answers, stateless, and shows in the tree as a sub-agent (``Handover``, kind
``agent``). Its usage is merged into the run's (``sub_agent_usage``), as ``delegate``'s is; a
question it asks suspends the run, and the answer resumes it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from runyard.errors import ConfigurationError
from runyard.registry.tools import (
    BuildContext,
    ExecutionContext,
    ToolConfiguration,
    ToolDependencies,
    factory_parameters,
)
from runyard.runtime import SubAgentAnswer
from runyard.service.tools.delegation import Delegation
from runyard.service.tools.handover import Handover
from runyard.service.tools.sub_agents import catalog_sub_agent
from runyard.tools import Tool, ToolContext

__all__ = ["AgentToolFactory", "AgentToolParameters"]


class AgentToolParameters(BaseModel):
    """The parameters of an ``agent`` tool spec."""

    model_config = ConfigDict(extra="forbid")

    agent: str = Field(min_length=1)
    description: str | None = None


class AgentToolFactory:
    """Builds one tool, named after its catalog entry, that asks the agent ``agent``."""

    def build(
        self, context: BuildContext, deps: ToolDependencies, exec_ctx: ExecutionContext
    ) -> ToolConfiguration:
        params = factory_parameters(AgentToolParameters, context, "agent")
        if params.agent not in context.sub_agents:
            raise ConfigurationError(
                f"tool {context.name!r} (agent): agent: {params.agent!r} is not one of the "
                f"agent's sub_agents ({', '.join(context.sub_agents) or 'none'}); list it there"
            )
        target, allowed = params.agent, tuple(context.sub_agents)

        async def ask(input: str, ctx: ToolContext) -> Any:
            """Ask the agent.

            Args:
                input: the task or question, with everything the agent needs to know.
            """
            sub = await catalog_sub_agent(ctx, target, allowed)
            task = Handover(
                target,
                input,
                sorted(sub.tools),
                "agent",
                lambda tree_id: Delegation(target, tree_id, sub),
            )
            if isinstance(ctx.resume_data, SubAgentAnswer):
                return await task.resume(ctx.resume_data, ctx)
            return await task.start(input, ctx)

        description = params.description or (
            f"Hand a task or question to the agent {target!r} and get its answer."
        )
        tool = Tool.from_function(ask, name=context.name, description=description)
        return ToolConfiguration.single(tool, context)
