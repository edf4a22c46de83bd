"""``as_tool``: an agent wrapped as a tool another agent can call."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from runyard.errors import ToolError
from runyard.messages import AgentMessage
from runyard.runtime import (
    AgentToolOutput,
    GenerateResult,
    SubAgentAnswer,
    SubAgentSuspend,
    usage_as_sub_agent,
)
from runyard.tools import Tool, ToolContext

if TYPE_CHECKING:
    from runyard.agent.agent import Agent

__all__ = ["agent_as_tool", "detach_suspension"]


def agent_as_tool(agent: Agent, description: str, name: str | None = None) -> Tool:
    """The model calls it with ``{"input": "..."}`` and gets ``{"result": "<the agent's text>"}``.

    The sub-agent's usage (and its own sub-agents') is merged into the caller's
    ``sub_agent_usage`` and ``total_cost``. When the sub-agent suspends (an approval, a
    question), the caller suspends with it: its pending suspensions name the sub-agent by its
    ``name`` as ``agent_id``, and answering one (on the caller's run) resumes the sub-agent.
    """

    async def run_sub_agent(input: str, ctx: ToolContext) -> AgentToolOutput | SubAgentSuspend:
        """Ask the sub-agent.

        Args:
            input: the task or question for the sub-agent, with everything it needs to know.
        """
        answer = ctx.resume_data
        if isinstance(answer, SubAgentAnswer):
            prepared = await agent.prepare_resume_from(
                answer.state, answer.data, tool_call_id=answer.tool_call_id
            )
            result = await agent.resume_prepared("generate", prepared, telemetry=ctx.telemetry)
        else:
            # The sub-agent's spans nest under this call's.
            result = await agent.generate(input, telemetry=ctx.telemetry)
        if result.error is not None:
            raise ToolError(f"Sub-agent {agent.name} failed: {result.error}")
        if result.suspended:
            return await detach_suspension(agent, result, agent.name)
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


async def detach_suspension(
    agent: Agent, result: GenerateResult, agent_id: str | None
) -> SubAgentSuspend:
    """What a sub-agent tool returns for a suspended sub-agent run: the run's state, taken out of
    the sub-agent's checkpoint store, for its caller's checkpoint to keep."""
    state = await agent.checkpoints.take(result.run_id)
    return SubAgentSuspend(state, agent_id)


def _tool_name(name: str) -> str:
    # Providers accept ^[a-zA-Z0-9_-]{1,64}$ as tool names.
    return re.sub(r"[^a-zA-Z0-9_-]+", "_", name).strip("_")[:64] or "sub_agent"
