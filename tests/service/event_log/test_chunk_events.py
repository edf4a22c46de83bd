"""Tool events → wire events: the service's own pass through, progress is a status line, and an
event with no wire form is never dropped silently."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from service_harness import OWNER, service

from runyard.agent import Agent
from runyard.protocol import StatusEvent, StatusPayload, TaskItem, TasksUpdateEvent, WireEvent
from runyard.protocol import TasksUpdatePayload as Tasks
from runyard.runtime import ToolEventChunk
from runyard.service import ChunkMapper, UnmappedToolEventWarning, WireToolEvent
from runyard.storage import Store
from runyard.testing import call, scripted_model, text
from runyard.tools import ToolContext, ToolEvent, ToolProgress, tool


@dataclass(frozen=True, slots=True)
class Rows(ToolEvent):
    """An event of some SDK tool that the service has no wire form for."""

    done: int


def chunk(event: ToolEvent) -> ToolEventChunk:
    return ToolEventChunk("call_1", "work", event)


def test_a_wire_tool_event_passes_through_unchanged() -> None:
    tasks = [TaskItem(id="t1", description="Add", status="pending")]
    event = TasksUpdateEvent(run_id="r1", agent_id="agent-001", payload=Tasks(tasks=tasks))

    assert ChunkMapper("r1", "agent-001").map(chunk(WireToolEvent(event))) == [event]


def test_progress_becomes_a_status_line_of_the_mappers_agent() -> None:
    events = ChunkMapper("r1", "agent-002").map(chunk(ToolProgress("half way")))

    payload = StatusPayload(message="half way")
    assert events == [StatusEvent(run_id="r1", agent_id="agent-002", payload=payload)]


def test_an_event_without_a_wire_form_fails_loudly_where_warnings_are_errors() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UnmappedToolEventWarning, match="tool work emitted a Rows"):
            ChunkMapper("r1", "agent-001").map(chunk(Rows(done=3)))


def working_agent() -> Callable[[Store], list[Agent]]:
    @tool
    async def work(ctx: ToolContext) -> str:
        """Work in steps."""
        ctx.emit(Rows(done=3))
        ctx.progress("half way")
        return "done"

    def build(_: Store) -> list[Agent]:
        model = scripted_model([call("work", id="call_w"), text("Done.")])
        return [Agent("assistant", model, tools=[work])]

    return build


async def test_a_server_warns_about_an_event_without_a_wire_form_and_the_run_goes_on(
    sqlite_url: str,
) -> None:
    async def one_run() -> list[WireEvent]:
        async with service(sqlite_url, working_agent()) as svc:
            await svc.runs.start(OWNER, "t1", "go")
            await svc.settle("t1")
            return [event for _, event in await svc.log("t1")]

    with pytest.warns(UnmappedToolEventWarning, match="tool work emitted a Rows"):
        log = await one_run()

    types = [e.type for e in log if e.type != "text-delta"]
    assert types == ["run-start", "tool-call", "status", "tool-result", "run-finish"]
    assert log[-1].payload.status == "completed"
