"""``read_background_tasks``: a run's background tasks folded from its stored events, read back
from the end of the log only as far as the run's ``run-start``."""

from __future__ import annotations

from runyard.protocol import (
    AgentCompletedEvent,
    AgentCompletedPayload,
    AgentSpawnedEvent,
    AgentSpawnedPayload,
    RunStartEvent,
    RunStartPayload,
    TextDeltaEvent,
    TextDeltaPayload,
    WireEvent,
    event_to_dict,
)
from runyard.service.background.status import BackgroundTaskView, read_background_tasks
from runyard.storage import Store, StoredEvent


def start(run: str) -> WireEvent:
    return RunStartEvent(run_id=run, agent_id="agent-001", payload=RunStartPayload(message_id="m"))


def spawned(run: str, agent: str, task: str | None) -> WireEvent:
    payload = AgentSpawnedPayload(parent_id="agent-001", role=f"{agent} role", task_id=task)
    return AgentSpawnedEvent(run_id=run, agent_id=agent, payload=payload)


def completed(run: str, agent: str, **outcome: str) -> WireEvent:
    payload = AgentCompletedPayload(role=f"{agent} role", result="", **outcome)
    return AgentCompletedEvent(run_id=run, agent_id=agent, payload=payload)


def delta(run: str) -> WireEvent:
    return TextDeltaEvent(run_id=run, agent_id="agent-001", payload=TextDeltaPayload(text="x"))


async def test_the_open_runs_tasks_come_from_its_own_events_however_long_it_is(
    store: Store,
) -> None:
    events = [
        start("run_a"),
        spawned("run_a", "agent-a", "task-a"),
        completed("run_a", "agent-a"),
        start("run_b"),
        spawned("run_b", "agent-b1", "task-b1"),
        spawned("run_b", "agent-fg", None),  # a foreground sub-agent is no task
        *[delta("run_b") for _ in range(1200)],
        spawned("run_b", "agent-b2", "task-b2"),
        spawned("run_b", "agent-b3", "task-b3"),
        spawned("run_b", "agent-b4", "task-b4"),
        completed("run_b", "agent-b2", error="boom"),
        completed("run_b", "agent-b3", status="cancelled"),
        completed("run_b", "agent-b4"),
    ]
    rows = [
        StoredEvent("t1", i, e.run_id, e.type, event_to_dict(e), 1000 + i)
        for i, e in enumerate(events, start=1)
    ]
    await store.append_events("t1", rows)

    tasks = await read_background_tasks(store, "t1", "run_b")

    assert tasks == [
        BackgroundTaskView("task-b1", "agent-b1 role", "agent-b1", "running", 1005),
        BackgroundTaskView("task-b2", "agent-b2 role", "agent-b2", "error", 2207),
        BackgroundTaskView("task-b3", "agent-b3 role", "agent-b3", "cancelled", 2208),
        BackgroundTaskView("task-b4", "agent-b4 role", "agent-b4", "completed", 2209),
    ]
    assert await read_background_tasks(store, "t1", "run_a") == [
        BackgroundTaskView("task-a", "agent-a role", "agent-a", "completed", 1002)
    ]
    assert await read_background_tasks(store, "empty", "run_c") == []
