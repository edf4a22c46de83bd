"""``BackgroundTasks``: the sub-agents one run segment started with ``delegate(background=true)``.

A background task runs beside the orchestrator, in a task this object owns; its events go
straight to the run's event writer (stored before anyone sees them, like every event) under the
sub-agent's own ``agentId``. The segment that started the tasks settles them before it ends: the
run's ``run-finish`` is its last event, so a run waits for its outstanding tasks, and a run that
is cancelled (or fails, or suspends) stops or awaits them first — each ends with its
``agent-completed``. A task's state here is read off the events it sends, the same events
``GET /v1/threads/{id}/status`` folds from the stored log (``background_status``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from runyard.errors import ToolError
from runyard.ids import now_ms
from runyard.protocol import (
    AgentCompletedEvent,
    AgentCompletedPayload,
    WireEvent,
)
from runyard.runtime import AgentToolOutput, SubAgentUsage, ToolEventChunk
from runyard.service.background.status import TaskStatus
from runyard.service.event_log.chunks import ChunkMapper
from runyard.tools import ToolContext, ToolEvent

__all__ = [
    "BACKGROUND_TASKS",
    "BackgroundTask",
    "BackgroundTasks",
    "BackgroundWork",
    "background_tasks",
    "new_agent_id",
]

logger = logging.getLogger(__name__)

BACKGROUND_TASKS = "runyard.service.background"
"""The ``ToolContext.deps`` key of the run segment's ``BackgroundTasks``."""

BackgroundWork = Callable[[ToolContext, str, str | None], Awaitable[object]]
"""What a background task runs: ``work(ctx, agent_id, task_id)``, sending its events with
``ctx.emit``: ``agent-spawned`` (with ``taskId``) first, ``agent-completed`` last."""


def new_agent_id() -> str:
    """A fresh sub-agent id for the activity tree."""
    return f"agent-{secrets.token_hex(3)}"


@dataclass(eq=False)
class BackgroundTask:
    """One background sub-agent: ``status`` is ``running`` until its ``agent-completed``."""

    task_id: str
    role: str
    agent_id: str
    started_at: int
    status: TaskStatus = "running"
    result: str = ""
    error: str | None = None
    usage: list[SubAgentUsage] = field(default_factory=list)
    task: asyncio.Task[None] | None = None

    def to_json(self) -> dict[str, object]:
        """What the orchestration tools tell the model about the task."""
        body: dict[str, object] = {
            "taskId": self.task_id,
            "role": self.role,
            "agentId": self.agent_id,
            "status": self.status,
        }
        if self.status != "running":
            body["result"] = self.result
        if self.error is not None:
            body["error"] = self.error
        return body

    def observe(self, event: WireEvent) -> None:
        """Take the task's ending from its ``agent-completed``."""
        if isinstance(event, AgentCompletedEvent) and event.agent_id == self.agent_id:
            self.status = event.payload.outcome
            self.result, self.error = event.payload.result, event.payload.error


class BackgroundTasks:
    """The background tasks of one run segment; ``abort`` is the run's abort signal.

    The segment attaches its event writer (``attach``) before the agent streams, and settles
    the tasks (``settle``, or ``cancel`` then ``settle``) before it ends; ``close`` is the last
    resort that cancels whatever still runs.
    """

    def __init__(self, run_id: str, abort: asyncio.Event) -> None:
        self.run_id = run_id
        self.abort = abort
        self._tasks: dict[str, BackgroundTask] = {}
        self._emit: Callable[[WireEvent], None] | None = None

    def attach(self, emit: Callable[[WireEvent], None]) -> None:
        """Send the tasks' events to ``emit`` (the segment's event writer)."""
        self._emit = emit

    def start(self, ctx: ToolContext, role: str, work: BackgroundWork) -> BackgroundTask:
        """Run ``work`` as a new background task of the run; returns at once."""
        task = BackgroundTask(f"task-{secrets.token_hex(4)}", role, new_agent_id(), now_ms())
        self._tasks[task.task_id] = task
        own = dataclasses.replace(ctx, abort_signal=self.abort, on_event=self._sink(ctx, task))
        task.task = asyncio.create_task(
            self._drive(task, work, own), name=f"runyard-background-{task.task_id}"
        )
        return task

    def get(self, task_id: str) -> BackgroundTask | None:
        """The task with this id, if this segment started it."""
        return self._tasks.get(task_id)

    def all(self) -> list[BackgroundTask]:
        """Every task of this segment, in the order they started."""
        return list(self._tasks.values())

    @property
    def usage(self) -> list[SubAgentUsage]:
        """What the tasks' sub-agents spent, for the run's total."""
        return [u for task in self._tasks.values() for u in task.usage]

    async def wait(self, task: BackgroundTask) -> None:
        """Wait until ``task`` ends; a waiter that gives up never cancels the task."""
        if task.task is not None and not task.task.done():
            await asyncio.wait({task.task})

    def cancel(self) -> None:
        """Ask every running task to stop (each ends ``cancelled``)."""
        self.abort.set()

    async def settle(self) -> None:
        """Wait until every task has ended."""
        running = [t.task for t in self._tasks.values() if t.task is not None]
        await asyncio.gather(*running, return_exceptions=True)

    async def close(self) -> None:
        """Cancel the asyncio tasks still running (the segment itself is being torn down)."""
        running = [t.task for t in self._tasks.values() if t.task is not None and not t.task.done()]
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        # Nothing emits any more; the writer's emit holds the segment, which holds this run.
        self._emit = None

    def _sink(self, ctx: ToolContext, task: BackgroundTask) -> Callable[[ToolEvent], None]:
        """The task's event channel: what the delegated run emits, mapped to wire events."""
        mapper = ChunkMapper(self.run_id, task.agent_id)

        def emitted(event: ToolEvent) -> None:
            for wire in mapper.map(ToolEventChunk(ctx.tool_call_id, ctx.tool_name, event)):
                self._publish(task, wire)

        return emitted

    def _publish(self, task: BackgroundTask, event: WireEvent) -> None:
        task.observe(event)
        assert self._emit is not None, "the segment attaches its writer before the agent runs"
        self._emit(event)

    async def _drive(self, task: BackgroundTask, work: BackgroundWork, ctx: ToolContext) -> None:
        try:
            outcome = await work(ctx, task.agent_id, task.task_id)
        except Exception as exc:
            logger.exception("run %s: background task %s failed", self.run_id, task.task_id)
            if task.status == "running":
                self._fail(task, str(exc) or type(exc).__name__)
            return
        if isinstance(outcome, AgentToolOutput):
            task.usage.extend(outcome.sub_agent_usage)

    def _fail(self, task: BackgroundTask, error: str) -> None:
        """End a task whose work broke before it could say so itself."""
        payload = AgentCompletedPayload(role=task.role, result="", error=error)
        event = AgentCompletedEvent(run_id=self.run_id, agent_id=task.agent_id, payload=payload)
        self._publish(task, event)


def background_tasks(ctx: ToolContext) -> BackgroundTasks:
    """The run segment's background tasks; a ``ToolError`` when the tool runs outside the service."""
    tasks = ctx.deps.get(BACKGROUND_TASKS)
    if not isinstance(tasks, BackgroundTasks):
        raise ToolError(f"{ctx.tool_name} only runs inside a run of the runyard service")
    return tasks
