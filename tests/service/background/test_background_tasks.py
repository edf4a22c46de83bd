"""Background sub-agents: ``delegate(background=true)`` answers at once with a task id, the task
runs on under the same run (its events under its own agentId), the orchestrator polls or awaits
it, ``status`` lists it from the stored log, the run ends only after it, and a cancel ends every
sub-agent — background and foreground — with ``agent-completed`` cancelled before ``run-finish``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pydantic_ai import messages as pai
from service_harness import OWNER, Service, key, service

from concurrent_agents import Gate, last_tool_return, per_agent_model
from runyard.agent import Agent
from runyard.memory import Memory
from runyard.protocol import WireEvent, parse_event
from runyard.service import BackgroundTasks, RunManager
from runyard.service.tools import await_task, delegate, delegation_errors, task_status
from runyard.storage import Store
from runyard.testing import Turn, TurnUsage, call, text
from runyard.testing.scripted import TurnSource
from runyard.tools import ToolContext, tool

RESEARCH = "You research."
WRITING = "You write."
SUB_USAGE = TurnUsage(input_tokens=5000, output_tokens=5)


def delegation(instructions: str, tool_name: str, *, background: bool) -> dict[str, Any]:
    return {
        "role": "researcher" if instructions == RESEARCH else "writer",
        "instructions": instructions,
        "briefing": "Find it.",
        "tools": [tool_name],
        "background": background,
    }


def agents(
    orchestrator: list[TurnSource], sub_agents: dict[str, list[TurnSource]], *gates: Gate
) -> Callable[[Store], list[Agent]]:
    def build(store: Store) -> list[Agent]:
        model = per_agent_model(orchestrator, sub_agents)
        tools = [delegate, task_status, await_task, *(g.tool for g in gates)]
        return [Agent("assistant", model, tools=tools, memory=Memory(store))]

    return build


async def logged_until(
    svc: Service, thread_id: str, done: Callable[[WireEvent], bool]
) -> list[WireEvent]:
    """The thread's events as they become durable, up to the first one ``done`` accepts."""
    seen: list[WireEvent] = []
    async with asyncio.timeout(20), svc.events.reader(key(thread_id)) as reader:
        while True:
            for live in await reader.next():
                seen.append(parse_event(live.json))
                if done(seen[-1]):
                    return seen


def is_orchestrator_text(event: WireEvent) -> bool:
    return event.type == "text-delta" and event.agent_id == "agent-001"


def all_of(*wanted: Callable[[WireEvent], bool]) -> Callable[[WireEvent], bool]:
    """True once every one of ``wanted`` has accepted an event seen so far."""
    pending = list(wanted)

    def done(event: WireEvent) -> bool:
        pending[:] = [w for w in pending if not w(event)]
        return not pending

    return done


def is_call(tool_call_id: str) -> Callable[[WireEvent], bool]:
    return lambda e: e.type == "tool-call" and e.payload.tool_call_id == tool_call_id


async def test_a_background_task_runs_on_after_the_orchestrator_answers_and_ends_the_run(
    db_url: str,
) -> None:
    gate = Gate("fetch")
    build = agents(
        [
            call("delegate", delegation(RESEARCH, "fetch", background=True), id="call_d"),
            text("On it"),
        ],
        {RESEARCH: [call("fetch", id="call_f"), text("Found 3 sources", usage=SUB_USAGE)]},
        gate,
    )
    async with service(db_url, build) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "research this")
        await gate.reached()
        await logged_until(svc, "t1", all_of(is_orchestrator_text, is_call("call_f")))
        running = await svc.runs.status(OWNER, "t1")
        elsewhere = RunManager(svc.store, svc.events, svc.runs.directory)
        reloaded = await elsewhere.status(OWNER, "t1")
        gate.open()
        await svc.settle("t1")
        log = [e for _, e in await svc.log("t1")]
        after = await svc.runs.status(OWNER, "t1")

    (spawned,) = [e for e in log if e.type == "agent-spawned"]
    child = spawned.agent_id
    task_id = spawned.payload.task_id
    assert task_id is not None
    (answered,) = [e for e in log if e.type == "tool-result" and e.agent_id == "agent-001"]
    assert answered.payload.result == {"taskId": task_id, "agentId": child, "status": "running"}
    assert running.has_active_run
    assert running.run_id == run_id
    (listed,) = running.to_json()["backgroundTasks"]
    assert listed == {
        "taskId": task_id,
        "role": "researcher",
        "agentId": child,
        "status": "running",
        "startedAt": listed["startedAt"],
    }
    assert listed["startedAt"] > 0
    assert reloaded.to_json() == running.to_json()
    child_events = [e.type for e in log if e.agent_id == child and e.type != "text-delta"]
    assert child_events == ["agent-spawned", "tool-call", "tool-result", "agent-completed"]
    (completed,) = [e for e in log if e.type == "agent-completed"]
    assert completed.payload.model_dump() == {"role": "researcher", "result": "Found 3 sources"}
    assert log.index(completed) > max(i for i, e in enumerate(log) if is_orchestrator_text(e))
    finish = log[-1]
    assert finish.type == "run-finish"
    assert finish.payload.status == "completed"
    assert finish.payload.usage is not None
    assert finish.payload.usage.input_tokens > SUB_USAGE.input_tokens  # the task's, and more
    assert after.to_json() == {"hasActiveRun": False, "isSuspended": False, "backgroundTasks": []}


async def test_the_orchestrator_polls_and_awaits_its_background_task(sqlite_url: str) -> None:
    gate = Gate("fetch")
    task_ids: list[str] = []

    def poll(messages: list[pai.ModelMessage]) -> Turn:
        task_ids.append(last_tool_return(messages)["taskId"])
        return call("task_status", {"task_id": task_ids[0]}, id="call_s")

    def wait_briefly(messages: list[pai.ModelMessage]) -> Turn:
        return call("await_task", {"task_id": task_ids[0], "timeout_seconds": 0}, id="call_t")

    def wait(messages: list[pai.ModelMessage]) -> Turn:
        gate.open()  # the task could not end before the calls above were answered
        return call("await_task", {"task_id": task_ids[0]}, id="call_a")

    build = agents(
        [
            call("delegate", delegation(RESEARCH, "fetch", background=True)),
            poll,
            wait_briefly,
            wait,
            text("The researcher found 3 sources"),
        ],
        {RESEARCH: [call("fetch"), text("Found 3 sources")]},
        gate,
    )
    async with service(sqlite_url, build) as svc:
        await svc.runs.start(OWNER, "t1", "research this")
        await svc.settle("t1")
        log = [e for _, e in await svc.log("t1")]

    results = {
        e.payload.tool_call_id: e.payload.result
        for e in log
        if e.type == "tool-result" and e.agent_id == "agent-001"
    }
    (child,) = [e.agent_id for e in log if e.type == "agent-spawned"]
    task = {"taskId": task_ids[0], "role": "researcher", "agentId": child}
    assert results["call_s"] == {**task, "status": "running"}
    assert results["call_t"] == {**task, "status": "running"}
    assert results["call_a"] == {**task, "status": "completed", "result": "Found 3 sources"}
    assert log[-1].type == "run-finish"
    assert log[-1].payload.status == "completed"


async def test_an_unknown_task_id_is_an_answer_the_model_reads(sqlite_url: str) -> None:
    build = agents(
        [call("await_task", {"task_id": "task-nope"}, id="call_a"), text("ok")],
        {},
    )
    async with service(sqlite_url, build) as svc:
        await svc.runs.start(OWNER, "t1", "wait")
        await svc.settle("t1")
        log = [e for _, e in await svc.log("t1")]

    (result,) = [e for e in log if e.type == "tool-result"]
    assert result.payload.result == {"error": "no background task 'task-nope' in this run"}


async def test_cancel_ends_the_orchestrator_and_every_sub_agent_before_run_finish(
    sqlite_url: str,
) -> None:
    fetch, draft = Gate("fetch"), Gate("draft")
    build = agents(
        [
            call("delegate", delegation(RESEARCH, "fetch", background=True), id="call_bg"),
            call("delegate", delegation(WRITING, "draft", background=False), id="call_fg"),
            text("unreachable"),
        ],
        {RESEARCH: [call("fetch", id="call_f")], WRITING: [call("draft", id="call_w")]},
        fetch,
        draft,
    )
    async with service(sqlite_url, build) as svc:
        await svc.runs.start(OWNER, "t1", "research and write")
        await fetch.reached()
        await draft.reached()
        assert await svc.runs.cancel(OWNER, "t1")
        log = [e for _, e in await svc.log("t1")]
        status = await svc.runs.status(OWNER, "t1")

    spawned = {e.payload.role: e.agent_id for e in log if e.type == "agent-spawned"}
    completed = {e.agent_id: e for e in log if e.type == "agent-completed"}
    assert set(completed) == set(spawned.values())
    for role, agent_id in spawned.items():
        assert completed[agent_id].payload.model_dump() == {
            "role": role,
            "result": "",
            "status": "cancelled",
        }
    errors = {e.payload.tool_call_id: e.agent_id for e in log if e.type == "tool-error"}
    assert errors == {
        "call_f": spawned["researcher"],
        "call_w": spawned["writer"],
        "call_fg": "agent-001",
    }
    finish = log[-1]
    assert finish.type == "run-finish"
    assert (finish.payload.status, finish.payload.reason) == ("cancelled", "user_cancelled")
    assert [e.type for e in log].count("run-finish") == 1
    assert not status.has_active_run


async def test_a_cancel_while_the_run_waits_for_its_task_ends_the_run_cancelled(
    sqlite_url: str,
) -> None:
    gate = Gate("fetch")
    build = agents(
        [call("delegate", delegation(RESEARCH, "fetch", background=True)), text("On it")],
        {RESEARCH: [call("fetch", id="call_f"), text("unreachable")]},
        gate,
    )
    async with service(sqlite_url, build) as svc:
        await svc.runs.start(OWNER, "t1", "research this")
        await gate.reached()
        await logged_until(svc, "t1", all_of(is_orchestrator_text, is_call("call_f")))
        assert await svc.runs.cancel(OWNER, "t1")
        log = [e for _, e in await svc.log("t1")]

    types = [e.type for e in log if e.type != "text-delta"]
    assert types[-3:] == ["tool-error", "agent-completed", "run-finish"]
    assert log[-2].payload.status == "cancelled"
    assert log[-1].payload.model_dump(exclude={"usage"}) == {
        "status": "cancelled",
        "reason": "user_cancelled",
    }


async def test_a_run_that_fails_stops_its_background_tasks(sqlite_url: str) -> None:
    gate = Gate("fetch")

    def broken(messages: list[pai.ModelMessage]) -> Turn:
        raise RuntimeError("provider down")

    build = agents(
        [call("delegate", delegation(RESEARCH, "fetch", background=True)), broken],
        {RESEARCH: [call("fetch", id="call_f"), text("unreachable")]},
        gate,
    )
    async with service(sqlite_url, build) as svc:
        await svc.runs.start(OWNER, "t1", "research this")
        await svc.settle("t1")
        log = [e for _, e in await svc.log("t1")]

    (completed,) = [e for e in log if e.type == "agent-completed"]
    assert completed.payload.status == "cancelled"
    assert log[-1].type == "run-finish"
    assert log[-1].payload.status == "error"
    assert log.index(completed) < len(log) - 1


async def test_a_run_that_suspends_asks_once_its_background_tasks_have_ended(
    sqlite_url: str,
) -> None:
    gate = Gate("fetch")

    @tool(requires_approval=True)
    async def publish() -> str:
        """Publish the findings."""
        return "published"

    def build(store: Store) -> list[Agent]:
        model = per_agent_model(
            [
                call("delegate", delegation(RESEARCH, "fetch", background=True)),
                call("publish", id="call_p"),
                text("Published"),
            ],
            {RESEARCH: [call("fetch", id="call_f"), text("Found 3 sources")]},
        )
        tools = [delegate, task_status, await_task, gate.tool, publish]
        return [Agent("assistant", model, tools=tools, memory=Memory(store))]

    async with service(sqlite_url, build) as svc:
        await svc.runs.start(OWNER, "t1", "research and publish")
        await gate.reached()
        await logged_until(svc, "t1", all_of(is_call("call_p"), is_call("call_f")))
        waiting = await svc.runs.status(OWNER, "t1")
        asked_early = await svc.store.list_pending_confirmations(key("t1"))
        gate.open()
        await svc.settle("t1")
        suspended = await svc.runs.status(OWNER, "t1")
        await svc.runs.confirm(OWNER, await svc.request_id("t1"), {"approved": True})
        await svc.settle("t1")
        log = [e for _, e in await svc.log("t1")]

    assert (waiting.has_active_run, waiting.is_suspended, asked_early) == (True, False, [])
    assert suspended.is_suspended
    assert [t.status for t in suspended.background_tasks] == ["completed"]
    types = [e.type for e in log]
    assert types.index("agent-completed") < types.index("confirmation-request")
    assert log[-1].type == "run-finish"
    assert log[-1].payload.status == "completed"


def test_the_task_tools_cannot_be_delegated() -> None:
    available = {t.name: t for t in [task_status, await_task]}
    assert delegation_errors(["task_status", "await_task"], available) == [
        '"task_status" is an orchestration tool and cannot be delegated',
        '"await_task" is an orchestration tool and cannot be delegated',
    ]


async def test_a_hand_off_at_shutdown_stops_background_tasks_and_logs_no_ending(
    sqlite_url: str,
) -> None:
    gate = Gate("fetch")
    build = agents(
        [call("delegate", delegation(RESEARCH, "fetch", background=True)), text("On it")],
        {RESEARCH: [call("fetch", id="call_f"), text("unreachable")]},
        gate,
    )
    async with service(sqlite_url, build) as svc:
        await svc.runs.start(OWNER, "t1", "research this")
        await gate.reached()
        await svc.runs.aclose(settle_seconds=0)
        types = await svc.types("t1")
        tasks = asyncio.all_tasks() - {asyncio.current_task()}

    # The run is another process's to continue: nothing here ended it or its sub-agent.
    assert "agent-spawned" in types
    assert not {"agent-completed", "run-finish"} & set(types)
    assert not [t for t in tasks if "runyard-run" in t.get_name()]


async def test_work_that_breaks_ends_its_task_with_an_error() -> None:
    tasks = BackgroundTasks("run_1", asyncio.Event())
    sent: list[WireEvent] = []
    tasks.attach(sent.append)

    async def broken(ctx: ToolContext, agent_id: str, task_id: str | None) -> None:
        raise RuntimeError("no model")

    task = tasks.start(ToolContext("run_1", "call_d", "delegate"), "researcher", broken)
    await tasks.settle()

    assert (task.status, task.error) == ("error", "no model")
    (completed,) = sent
    assert completed.type == "agent-completed"
    assert completed.agent_id == task.agent_id
    assert completed.payload.model_dump() == {
        "role": "researcher",
        "result": "",
        "error": "no model",
    }


async def test_the_task_tools_answer_only_inside_the_service() -> None:
    agent = Agent(
        "solo",
        per_agent_model([call("task_status", id="call_s"), text("ok")], {}),
        tools=[task_status],
    )
    result = await agent.generate("how are my tasks?")

    (failed,) = [m for m in result.messages if m.role == "tool"]
    assert "task_status only runs inside a run of the runyard service" in str(failed.parts)
