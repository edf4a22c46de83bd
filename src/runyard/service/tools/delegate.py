"""``delegate``: hand a task to a fresh sub-agent with a subset of the orchestrator's tools.

The sub-agent is stateless (no memory), runs on the orchestrator's model with ``instructions``
as its system prompt and ``briefing`` as its one message. Its chunks become wire events under
its own ``agentId``, between ``agent-spawned`` and ``agent-completed``; all of them travel to
the run as ``WireToolEvent``s on the call's event channel (``ToolContext.emit``), so they keep
their place in the run's stream. Tools that need a person's approval cannot be
delegated: a sub-agent has no way to wait for an answer.
"""

from __future__ import annotations

import secrets

from runyard.agent import Agent
from runyard.protocol import (
    AgentCompletedEvent,
    AgentCompletedPayload,
    AgentSpawnedEvent,
    AgentSpawnedPayload,
)
from runyard.runtime import AgentToolOutput, usage_as_sub_agent
from runyard.service.chunk_events import ChunkMapper, WireToolEvent
from runyard.service.tools.context import service_deps
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
        elif available[name].gated:
            errors.append(f'"{name}" needs approval and cannot be delegated; call it yourself')
    return errors


async def _delegate(
    role: str, instructions: str, briefing: str, tools: list[str], ctx: ToolContext
) -> dict[str, str] | AgentToolOutput:
    """Give a self-contained task to a new sub-agent that only has the tools you name.

    Args:
        role: a short name for the sub-agent's job, e.g. "researcher".
        instructions: the sub-agent's system prompt for this task.
        briefing: everything the sub-agent needs to know: the task, context and expected result.
        tools: names of your tools the sub-agent may use (not plan or delegate).
    """
    deps = service_deps(ctx)
    orchestrator = deps.agent
    errors = delegation_errors(tools, orchestrator.tools)
    if errors:
        return {"result": "Delegation failed: " + "; ".join(errors)}
    agent_id = f"agent-{secrets.token_hex(3)}"
    spawned = AgentSpawnedPayload(
        parent_id=deps.agent_id, role=role, tools=tools, kind="delegate", goal=briefing
    )
    ctx.emit(
        WireToolEvent(AgentSpawnedEvent(run_id=ctx.run_id, agent_id=agent_id, payload=spawned))
    )
    sub = Agent(
        name=f"{orchestrator.name}.{role}"[:64],
        model=orchestrator.model,
        instructions=instructions,
        tools=[orchestrator.tools[name] for name in tools],
    )
    mapper = ChunkMapper(ctx.run_id, agent_id)
    stream = await sub.stream(briefing, abort_signal=ctx.abort_signal, deps=ctx.deps)
    async for chunk in stream:
        for event in mapper.map(chunk):
            ctx.emit(WireToolEvent(event))
    result = await stream.result()
    if result.error is not None:
        ctx.emit(WireToolEvent(_completed(ctx.run_id, agent_id, role, "", str(result.error))))
        return {"result": f"Sub-agent error: {result.error}"}
    ctx.emit(WireToolEvent(_completed(ctx.run_id, agent_id, role, result.text, None)))
    usage = usage_as_sub_agent(sub.name, sub.model_label, result)
    return AgentToolOutput({"result": result.text}, usage)


def _completed(
    run_id: str, agent_id: str, role: str, result: str, error: str | None
) -> AgentCompletedEvent:
    payload = AgentCompletedPayload(role=role, result=result, error=error)
    return AgentCompletedEvent(run_id=run_id, agent_id=agent_id, payload=payload)


delegate: Tool = tool(name="delegate")(_delegate)
