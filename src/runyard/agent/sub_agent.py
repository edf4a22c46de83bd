"""``as_tool``: an agent wrapped as a tool another agent can call."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from runyard.errors import ToolError
from runyard.messages import AgentMessage
from runyard.runtime import AgentToolOutput, usage_as_sub_agent
from runyard.tools import Tool, ToolContext

if TYPE_CHECKING:
    from runyard.agent.agent import Agent

__all__ = ["agent_as_tool"]


def agent_as_tool(agent: Agent, description: str, name: str | None = None) -> Tool:
    """The model calls it with ``{"input": "..."}`` and gets ``{"result": "<the agent's text>"}``.

    The sub-agent's usage (and its own sub-agents') is merged into the caller's
    ``sub_agent_usage`` and ``total_cost``.
    """

    async def run_sub_agent(input: str, ctx: ToolContext) -> AgentToolOutput:
        """Ask the sub-agent.

        Args:
            input: the task or question for the sub-agent, with everything it needs to know.
        """
        # The sub-agent's spans nest under this call's.
        result = await agent.generate(input, telemetry=ctx.telemetry)
        if result.error is not None:
            raise ToolError(f"Sub-agent {agent.name} failed: {result.error}")
        if result.pending_suspend:
            raise ToolError(
                f"Sub-agent {agent.name} needs an approval, which sub-agents cannot ask for"
            )
        text = "\n".join(
            m.text
            for m in result.messages
            if isinstance(m, AgentMessage) and m.role == "assistant" and m.text
        )
        usage = usage_as_sub_agent(agent.name, agent.model_label, result)
        return AgentToolOutput({"result": text}, usage)

    return Tool.from_function(
        run_sub_agent, name=name or _tool_name(agent.name), description=description
    )


def _tool_name(name: str) -> str:
    # Providers accept ^[a-zA-Z0-9_-]{1,64}$ as tool names.
    return re.sub(r"[^a-zA-Z0-9_-]+", "_", name).strip("_")[:64] or "sub_agent"
