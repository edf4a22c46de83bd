"""``delegate``: hand a task to a fresh sub-agent with a subset of the orchestrator's tools.

The sub-agent is stateless (no memory), runs on the orchestrator's model with ``instructions``
as its system prompt and ``briefing`` as its one message. Its chunks become wire events under
its own ``agentId``, between ``agent-spawned`` and ``agent-completed``; all of them travel to
the run as ``WireToolEvent``s on the call's event channel (``ToolContext.emit``), so they keep
their place in the run's stream. Tools that need a person's approval cannot be
delegated: a sub-agent has no way to wait for an answer. With ``background: true`` the call
answers at once with a ``taskId`` and the sub-agent runs as a background task of the run
(``background_tasks``); a cancel of the run ends every sub-agent with ``agent-completed``
``{"status": "cancelled"}``.
"""

from __future__ import annotations

import asyncio
from functools import partial

from runyard.agent import Agent
from runyard.errors import RunAbortedError
from runyard.protocol import (
    AgentCompletedEvent,
    AgentCompletedPayload,
    AgentSpawnedEvent,
    AgentSpawnedPayload,
)
from runyard.runtime import AgentToolOutput, usage_as_sub_agent
from runyard.service.background_tasks import background_tasks, new_agent_id
from runyard.service.chunk_events import ChunkMapper, WireToolEvent
from runyard.service.tools.context import service_deps
from runyard.tools import Tool, ToolContext, tool

__all__ = ["ORCHESTRATION_TOOLS", "delegate", "delegation_errors"]

ORCHESTRATION_TOOLS = frozenset({"plan", "delegate", "task_status", "await_task"})


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
    role: str,
    instructions: str,
    briefing: str,
    tools: list[str],
    ctx: ToolContext,
    background: bool = False,
) -> dict[str, str] | AgentToolOutput:
    """Give a self-contained task to a new sub-agent that only has the tools you name.

    Args:
        role: a short name for the sub-agent's job, e.g. "researcher".
        instructions: the sub-agent's system prompt for this task.
        briefing: everything the sub-agent needs to know: the task, context and expected result.
        tools: names of your tools the sub-agent may use (not plan or delegate).
        background: true to go on while the sub-agent works: you get its taskId at once; check
            it with task_status or wait for its result with await_task.
    """
    deps = service_deps(ctx)
    errors = delegation_errors(tools, deps.agent.tools)
    if errors:
        return {"result": "Delegation failed: " + "; ".join(errors)}
    work = partial(_run_sub_agent, role, instructions, briefing, tools)
    if background:
        task = background_tasks(ctx).start(ctx, role, work)
        return {"taskId": task.task_id, "agentId": task.agent_id, "status": task.status}
    return await work(ctx, new_agent_id(), None)


async def _run_sub_agent(
    role: str,
    instructions: str,
    briefing: str,
    tools: list[str],
    ctx: ToolContext,
    agent_id: str,
    task_id: str | None,
) -> dict[str, str] | AgentToolOutput:
    """Run the sub-agent to its end, between its ``agent-spawned`` and its ``agent-completed``."""
    deps = service_deps(ctx)
    orchestrator = deps.agent
    spawned = AgentSpawnedPayload(
        parent_id=deps.agent_id,
        role=role,
        tools=tools,
        task_id=task_id,
        kind="delegate",
        goal=briefing,
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
    try:
        async for chunk in stream:
            for event in mapper.map(chunk):
                ctx.emit(WireToolEvent(event))
        result = await stream.result()
    except asyncio.CancelledError:
        # The orchestrator's call is being cancelled (a cancel of the run): the sub-agent stops
        # with it, and still says so before the run's end.
        stream.abort()
        _emit_cancelled(ctx, mapper, role)
        raise
    if isinstance(result.error, RunAbortedError):
        _emit_cancelled(ctx, mapper, role)
        return {"result": "Sub-agent cancelled"}
    if result.error is not None:
        ctx.emit(WireToolEvent(_completed(ctx.run_id, agent_id, role, "", str(result.error))))
        return {"result": f"Sub-agent error: {result.error}"}
    ctx.emit(WireToolEvent(_completed(ctx.run_id, agent_id, role, result.text, None)))
    usage = usage_as_sub_agent(sub.name, sub.model_label, result)
    return AgentToolOutput({"result": result.text}, usage)


def _emit_cancelled(ctx: ToolContext, mapper: ChunkMapper, role: str) -> None:
    """Close the sub-agent's open calls and end it ``cancelled``."""
    for event in mapper.cancel_open_calls():
        ctx.emit(WireToolEvent(event))
    payload = AgentCompletedPayload(role=role, result="", status="cancelled")
    completed = AgentCompletedEvent(run_id=ctx.run_id, agent_id=mapper.agent_id, payload=payload)
    ctx.emit(WireToolEvent(completed))


def _completed(
    run_id: str, agent_id: str, role: str, result: str, error: str | None
) -> AgentCompletedEvent:
    payload = AgentCompletedPayload(role=role, result=result, error=error)
    return AgentCompletedEvent(run_id=run_id, agent_id=agent_id, payload=payload)


delegate: Tool = tool(name="delegate")(_delegate)
