"""``delegate`` for an agent with ``sub_agents``: hand a task to one of those catalog agents.

An agent whose spec lists ``sub_agents`` delegates to them and to nothing else: the model names
the agent, and any other name is a tool error that lists the ones it may use. The sub-agent is
the catalog agent the run's tenant has under that id, run stateless (no thread, so no memory) on
one message, the briefing (``compose_briefing``), and shown in the tree like every delegated
sub-agent (``Handover``). Without ``sub_agents``, ``delegate`` makes ad-hoc sub-agents from the
agent's own tools (``delegate.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runyard.agent import Agent
from runyard.errors import ToolError
from runyard.runtime import SubAgentAnswer
from runyard.service.tools.briefing import compose_briefing
from runyard.service.tools.context import service_deps, thread_scope
from runyard.service.tools.delegation import Delegation
from runyard.service.tools.handover import Handover
from runyard.service.tools.iteration_log import IterationLog
from runyard.service.tools.sub_agents import catalog_sub_agent
from runyard.tools import Tool, ToolContext

__all__ = ["sub_agent_delegate"]


def sub_agent_delegate(name: str, sub_agents: Sequence[str]) -> Tool:
    """A ``delegate`` tool called ``name`` that hands tasks to ``sub_agents`` only."""
    allowed = tuple(sub_agents)

    async def delegate(
        agent: str,
        briefing: str,
        ctx: ToolContext,
        conversationContext: str | None = None,
        background: bool = False,
    ) -> Any:
        """Give a self-contained task to one of your sub-agents.

        Args:
            agent: the id of the sub-agent that does the task.
            briefing: everything the sub-agent needs to know: the task, context and expected
                result.
            conversationContext: what the sub-agent should know of this conversation, when the
                briefing does not say it.
            background: true to go on while the sub-agent works: you get its taskId at once;
                check it with task_status or wait for its result with await_task.
        """
        sub = await catalog_sub_agent(ctx, agent, allowed)
        deps = service_deps(ctx)
        task = Handover(
            agent,
            briefing,
            sorted(sub.tools),
            "delegate",
            lambda agent_id: Delegation(agent, agent_id, sub),
            IterationLog(deps.store, thread_scope(ctx)),
        )
        if isinstance(ctx.resume_data, SubAgentAnswer):
            return await task.resume(ctx.resume_data, ctx)
        if background:
            _check_background(agent, sub)
        message = compose_briefing(briefing, conversationContext, await task.failures())
        return await task.start(message, ctx, background=background)

    description = (
        "Give a self-contained task to one of your sub-agents: "
        f"{', '.join(allowed)}. It answers with the sub-agent's result."
    )
    return Tool.from_function(delegate, name=name, description=description)


def _check_background(agent_id: str, sub: Agent) -> None:
    # A background sub-agent may not ask: no run segment would be left to hold the question.
    gated = sorted(name for name, tool in sub.tools.items() if tool.gated)
    if gated:
        raise ToolError(
            f"{agent_id!r} has tools that need approval ({', '.join(gated)}) and cannot work "
            "in the background"
        )
