"""``Delegation``: one delegated sub-agent run inside a ``delegate`` call, fresh or resumed.

The sub-agent's chunks become wire events under its own ``agentId`` and travel to the run as
``WireToolEvent``s on the call's event channel (``ToolContext.emit``), keeping their place in the
run's stream. How the sub-agent's run ended decides the call's output: an error or a result
(each closes the sub-agent with ``agent-completed``), or a suspension — then the call returns
``SubAgentSuspend`` and the whole run suspends on the sub-agent's questions, which name the
sub-agent's ``agentId``; no ``agent-completed`` yet. Answering one resumes the run at the
``delegate`` call, and ``resume`` carries the sub-agent on from the state the run's checkpoint
kept (the sub-agent is rebuilt from the call's arguments: it has no checkpoint of its own). A
cancel of the run stops the sub-agent too: its open calls get ``tool-error`` and it ends with
``agent-completed`` ``{"status": "cancelled"}``, before the run's ``run-finish``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from runyard.agent import Agent, StreamResult, detach_suspension
from runyard.agent.run_options import ResumeOptions
from runyard.errors import RunAbortedError
from runyard.protocol import AgentCompletedEvent, AgentCompletedPayload
from runyard.runtime import (
    AgentToolOutput,
    GenerateResult,
    SubAgentAnswer,
    usage_as_sub_agent,
)
from runyard.service.event_log.chunks import ChunkMapper, WireToolEvent
from runyard.service.tools.context import SERVICE_DEPS, ServiceDeps
from runyard.tools import ToolContext

__all__ = ["Delegation"]


@dataclass(frozen=True, slots=True)
class Delegation:
    """The sub-agent ``agent`` doing ``role``'s task, shown as ``agent_id`` in the tree."""

    role: str
    agent_id: str
    agent: Agent

    @classmethod
    def build(
        cls, orchestrator: Agent, role: str, instructions: str, tools: list[str], agent_id: str
    ) -> Delegation:
        """A fresh stateless sub-agent on the orchestrator's model (and fallback models) with the
        named tools, under the orchestrator's middleware (its guardrails hold for the work it
        hands on)."""
        sub = Agent(
            name=f"{orchestrator.name}.{role}"[:64],
            model=orchestrator.model,
            fallback_models=orchestrator.fallback_models,
            instructions=instructions,
            tools=[orchestrator.tools[name] for name in tools],
            middleware=orchestrator.middleware,
        )
        return cls(role, agent_id, sub)

    async def start(self, briefing: str, ctx: ToolContext) -> GenerateResult:
        """Run the sub-agent on ``briefing`` until it ends or suspends."""
        stream = await self.agent.stream(briefing, **_segment_options(ctx))
        return await self._follow(stream, ctx)

    async def resume(self, answer: SubAgentAnswer, ctx: ToolContext) -> GenerateResult:
        """Carry the suspended sub-agent on with the answer to one of its questions."""
        prepared = await self.agent.prepare_resume_from(
            answer.state, answer.data, tool_call_id=answer.tool_call_id
        )
        stream = await self.agent.resume_prepared("stream", prepared, **_segment_options(ctx))
        return await self._follow(stream, ctx)

    async def output(self, result: GenerateResult, ctx: ToolContext) -> Any:
        """The ``delegate`` call's output for how the sub-agent's run ended."""
        if isinstance(result.error, RunAbortedError):
            return {"result": "Sub-agent cancelled"}  # it said so as it stopped (``_follow``)
        if result.error is not None:
            self._completed(ctx, "", str(result.error))
            return {"result": f"Sub-agent error: {result.error}"}
        if result.suspended:
            return await detach_suspension(self.agent, result, self.agent_id)
        self._completed(ctx, result.text, None)
        usage = usage_as_sub_agent(self.agent.name, self.agent.model_label, result)
        return AgentToolOutput({"result": result.text}, usage)

    async def _follow(self, stream: StreamResult, ctx: ToolContext) -> GenerateResult:
        mapper = ChunkMapper(ctx.run_id, self.agent_id)
        try:
            async for chunk in stream:
                for event in mapper.map(chunk):
                    ctx.emit(WireToolEvent(event))
            result = await stream.result()
        except asyncio.CancelledError:
            # The orchestrator's call is cancelled with the run: the sub-agent stops with it and
            # still says so before the run's end.
            stream.abort()
            self._cancelled(ctx, mapper)
            raise
        if isinstance(result.error, RunAbortedError):
            self._cancelled(ctx, mapper)
        return result

    def _cancelled(self, ctx: ToolContext, mapper: ChunkMapper) -> None:
        """Close the sub-agent's open calls and end it ``cancelled``."""
        for event in mapper.cancel_open_calls():
            ctx.emit(WireToolEvent(event))
        payload = AgentCompletedPayload(role=self.role, result="", status="cancelled")
        event = AgentCompletedEvent(run_id=ctx.run_id, agent_id=self.agent_id, payload=payload)
        ctx.emit(WireToolEvent(event))

    def _completed(self, ctx: ToolContext, result: str, error: str | None) -> None:
        payload = AgentCompletedPayload(role=self.role, result=result, error=error)
        event = AgentCompletedEvent(run_id=ctx.run_id, agent_id=self.agent_id, payload=payload)
        ctx.emit(WireToolEvent(event))


def _segment_options(ctx: ToolContext) -> ResumeOptions:
    """The options of each of the sub-agent's segments: the call's abort signal, deps and
    telemetry, and the run's file store (the sub-agent reads stored files and keeps the large
    ones it produces as the run does; its content events name them by reference)."""
    deps = ctx.deps.get(SERVICE_DEPS)
    service = deps if isinstance(deps, ServiceDeps) else None
    return ResumeOptions(
        abort_signal=ctx.abort_signal,
        deps=ctx.deps,
        telemetry=ctx.telemetry,
        files=service.files if service else None,
        produced_files=service.produced_files if service else None,
    )
