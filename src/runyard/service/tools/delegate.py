"""``delegate``: hand a task to a fresh sub-agent with a subset of the orchestrator's tools.

The sub-agent is stateless (no memory), runs on the orchestrator's model with ``instructions``
as its system prompt and one message: the ``briefing``, the ``conversationContext`` the
orchestrator passes on, and the errors of earlier failed attempts at the same task
(``IterationLog``). Its events appear under its own ``agentId``, between ``agent-spawned`` and
``agent-completed`` (``Delegation``). A sub-agent that asks for an approval or an answer
suspends the whole run; the answer resumes it, then the orchestrator.
"""

from __future__ import annotations

import secrets
from typing import Any

from runyard.errors import RunAbortedError
from runyard.protocol import AgentSpawnedEvent, AgentSpawnedPayload
from runyard.runtime import GenerateResult, SubAgentAnswer
from runyard.service.chunk_events import WireToolEvent
from runyard.service.tools.briefing import compose_briefing
from runyard.service.tools.context import service_deps, thread_scope
from runyard.service.tools.delegation import Delegation
from runyard.service.tools.iteration_log import IterationLog
from runyard.tools import Tool, ToolContext, tool

__all__ = ["ORCHESTRATION_TOOLS", "delegate", "delegation_errors"]

ORCHESTRATION_TOOLS = frozenset({"plan", "delegate"})


def delegation_errors(names: list[str], available: dict[str, Tool]) -> list[str]:
    """Why these tool names cannot be given to a sub-agent (empty when they all can)."""
    if not names:
        return ['"tools" must contain at least one tool name']
    errors = []
    for name in names:
        if name in ORCHESTRATION_TOOLS:
            errors.append(f'"{name}" is an orchestration tool and cannot be delegated')
        elif name not in available:
            errors.append(f'"{name}" is not a tool of this agent')
    return errors


async def _delegate(
    role: str,
    instructions: str,
    briefing: str,
    tools: list[str],
    ctx: ToolContext,
    conversationContext: str | None = None,
) -> Any:
    """Give a self-contained task to a new sub-agent that only has the tools you name.

    Args:
        role: a short name for the sub-agent's job, e.g. "researcher".
        instructions: the sub-agent's system prompt for this task.
        briefing: everything the sub-agent needs to know: the task, context and expected result.
        tools: names of your tools the sub-agent may use (not plan or delegate).
        conversationContext: what the sub-agent should know of this conversation (decisions,
            the user's preferences, earlier results), when the briefing does not say it.
    """
    deps = service_deps(ctx)
    orchestrator = deps.agent
    log = IterationLog(deps.store, thread_scope(ctx))
    answer = ctx.resume_data
    if isinstance(answer, SubAgentAnswer):
        assert answer.agent_id is not None  # a delegation always names its sub-agent
        resumed = Delegation.build(orchestrator, role, instructions, tools, answer.agent_id)
        return await _ended(resumed, await resumed.resume(answer, ctx), log, ctx)
    errors = delegation_errors(tools, orchestrator.tools)
    if errors:
        return {"result": "Delegation failed: " + "; ".join(errors)}
    message = compose_briefing(briefing, conversationContext, await log.failures(role))
    delegation = Delegation.build(
        orchestrator, role, instructions, tools, f"agent-{secrets.token_hex(3)}"
    )
    spawned = AgentSpawnedPayload(
        parent_id=deps.agent_id, role=role, tools=tools, kind="delegate", goal=briefing
    )
    ctx.emit(
        WireToolEvent(
            AgentSpawnedEvent(run_id=ctx.run_id, agent_id=delegation.agent_id, payload=spawned)
        )
    )
    return await _ended(delegation, await delegation.start(message, ctx), log, ctx)


async def _ended(
    delegation: Delegation, result: GenerateResult, log: IterationLog, ctx: ToolContext
) -> Any:
    """The call's output; a failed attempt is logged for the next one (a cancelled one did not
    fail), a success clears the log."""
    if result.error is not None and not isinstance(result.error, RunAbortedError):
        await log.record_failure(delegation.role, str(result.error))
    elif not result.suspended:
        await log.clear(delegation.role)
    return await delegation.output(result, ctx)


delegate: Tool = tool(name="delegate")(_delegate)
