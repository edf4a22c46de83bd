"""``Handover``: a task handed to a sub-agent by a tool call, from ``agent-spawned`` to its end.

``delegate`` (an ad-hoc sub-agent, or one of the agent's catalog ``sub_agents``) and ``agent`` (a
catalog agent as a tool) differ only in which agent does the task; the rest is this one path:
the sub-agent's events under its own ``agentId``, a run suspended on its questions and resumed by
the answers, background tasks, failed attempts kept in the thread's ``IterationLog``, and its
usage merged into the run's (``Delegation.output``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from runyard.errors import RunAbortedError
from runyard.protocol import AgentSpawnedEvent, AgentSpawnedPayload
from runyard.runtime import GenerateResult, SubAgentAnswer
from runyard.service.background.tasks import background_tasks, new_agent_id
from runyard.service.event_log.chunks import WireToolEvent
from runyard.service.tools.context import service_deps
from runyard.service.tools.delegation import Delegation
from runyard.service.tools.iteration_log import IterationLog
from runyard.tools import ToolContext

__all__ = ["Handover"]


@dataclass(frozen=True, slots=True)
class Handover:
    """``role``'s task with ``goal``; ``delegation`` makes the sub-agent's run for a tree id.

    ``tools`` and ``kind`` are what ``agent-spawned`` shows; ``log`` keeps failed attempts (None:
    not kept).
    """

    role: str
    goal: str
    tools: list[str]
    kind: str
    delegation: Callable[[str], Delegation]
    log: IterationLog | None = None

    async def failures(self) -> list[str]:
        """The errors of the earlier failed attempts at this task, oldest first."""
        return await self.log.failures(self.role) if self.log is not None else []

    async def start(self, message: str, ctx: ToolContext, *, background: bool = False) -> Any:
        """Run the sub-agent on ``message``; in the background, answer with its task at once."""
        work = partial(self._run, message)
        if background:
            task = background_tasks(ctx).start(ctx, self.role, work)
            return {"taskId": task.task_id, "agentId": task.agent_id, "status": task.status}
        return await work(ctx, new_agent_id(), None)

    async def resume(self, answer: SubAgentAnswer, ctx: ToolContext) -> Any:
        """Carry the suspended sub-agent on with the answer to one of its questions."""
        assert answer.agent_id is not None  # a handover always names its sub-agent
        resumed = self.delegation(answer.agent_id)
        return await self._ended(resumed, await resumed.resume(answer, ctx), ctx)

    async def _run(self, message: str, ctx: ToolContext, agent_id: str, task_id: str | None) -> Any:
        delegation = self.delegation(agent_id)
        spawned = AgentSpawnedPayload(
            parent_id=service_deps(ctx).agent_id,
            role=self.role,
            tools=self.tools,
            task_id=task_id,
            kind=self.kind,
            goal=self.goal,
        )
        event = AgentSpawnedEvent(run_id=ctx.run_id, agent_id=agent_id, payload=spawned)
        ctx.emit(WireToolEvent(event))
        return await self._ended(delegation, await delegation.start(message, ctx), ctx)

    async def _ended(self, delegation: Delegation, result: GenerateResult, ctx: ToolContext) -> Any:
        """The call's output; a failed attempt is logged for the next one (a cancelled one did
        not fail), a success clears the log."""
        if self.log is not None:
            if result.error is not None and not isinstance(result.error, RunAbortedError):
                await self.log.record_failure(self.role, str(result.error))
            elif not result.suspended:
                await self.log.clear(self.role)
        return await delegation.output(result, ctx)
