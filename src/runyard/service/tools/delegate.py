"""``delegate``: hand a task to a fresh sub-agent with a subset of the orchestrator's tools.

The sub-agent is stateless (no memory), runs on the orchestrator's model with ``instructions``
as its system prompt and one message: the ``briefing``, the ``conversationContext`` the
orchestrator passes on, and the errors of earlier failed attempts at the same task
(``IterationLog``). Its events appear under its own ``agentId``, between ``agent-spawned`` and
``agent-completed`` (``Delegation``). A sub-agent that asks for an approval or an answer
suspends the whole run; the answer resumes it, then the orchestrator. With ``background: true``
the call answers at once with a ``taskId`` and the sub-agent runs as a background task of the
run (``background_tasks``); such a sub-agent may not ask (no segment would be left to hold the
question), so tools that need approval are refused for it. A refusal (no tools, an orchestration
tool, an unknown one, an approval tool in the background) is a tool error the model reads; nothing
is spawned. A cancel of the run ends every
sub-agent with ``agent-completed`` ``{"status": "cancelled"}``.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from runyard.errors import ToolError
from runyard.runtime import SubAgentAnswer
from runyard.service.tools.briefing import compose_briefing
from runyard.service.tools.context import service_deps, thread_scope
from runyard.service.tools.delegation import Delegation
from runyard.service.tools.handover import Handover
from runyard.service.tools.iteration_log import IterationLog
from runyard.tools import Tool, ToolContext, tool

__all__ = ["ORCHESTRATION_TOOLS", "delegate", "delegation_errors"]

ORCHESTRATION_TOOLS = frozenset({"plan", "delegate", "task_status", "await_task"})


def delegation_errors(
    names: list[str], available: dict[str, Tool], *, background: bool = False
) -> list[str]:
    """Why these tool names cannot be given to a sub-agent (empty when they all can)."""
    if not names:
        return ['"tools" must contain at least one tool name']
    errors = []
    for name in names:
        if name in ORCHESTRATION_TOOLS:
            errors.append(f'"{name}" is an orchestration tool and cannot be delegated')
        elif name not in available:
            errors.append(f'"{name}" is not a tool of this agent')
        elif background and available[name].gated:
            errors.append(f'"{name}" needs approval and cannot run in the background')
    return errors


async def _delegate(
    role: str,
    instructions: str,
    briefing: str,
    tools: list[str],
    ctx: ToolContext,
    conversationContext: str | None = None,
    background: bool = False,
) -> Any:
    """Give a self-contained task to a new sub-agent that only has the tools you name.

    Args:
        role: a short name for the sub-agent's job, e.g. "researcher".
        instructions: the sub-agent's system prompt for this task.
        briefing: everything the sub-agent needs to know: the task, context and expected result.
        tools: names of your tools the sub-agent may use (not plan or delegate).
        conversationContext: what the sub-agent should know of this conversation (decisions,
            the user's preferences, earlier results), when the briefing does not say it.
        background: true to go on while the sub-agent works: you get its taskId at once; check
            it with task_status or wait for its result with await_task.
    """
    deps = service_deps(ctx)
    orchestrator = deps.agent
    task = Handover(
        role,
        briefing,
        tools,
        "delegate",
        partial(Delegation.build, orchestrator, role, instructions, tools),
        IterationLog(deps.store, thread_scope(ctx)),
    )
    if isinstance(ctx.resume_data, SubAgentAnswer):
        return await task.resume(ctx.resume_data, ctx)
    errors = delegation_errors(tools, orchestrator.tools, background=background)
    if errors:
        raise ToolError("; ".join(errors))
    message = compose_briefing(briefing, conversationContext, await task.failures())
    return await task.start(message, ctx, background=background)


delegate: Tool = tool(name="delegate")(_delegate)
