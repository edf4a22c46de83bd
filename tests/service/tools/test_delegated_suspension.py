"""A run suspended on a delegated sub-agent's question, as the service keeps it: the crash sweep
asks the question again under the sub-agent's agentId, and a cancel ends the run and its
sub-agent's checkpoint with it."""

from __future__ import annotations

import pytest
from service_harness import OWNER, service

from runyard.agent import Agent
from runyard.ids import now_ms
from runyard.memory import Memory
from runyard.protocol import WireEvent
from runyard.service.event_log import EventWriter
from runyard.service.tools import delegate, plan, save_note
from runyard.storage import Store
from runyard.testing import call, scripted_model, text

DELEGATION = {
    "role": "note keeper",
    "instructions": "You keep notes.",
    "briefing": "Save the note 'keep'.",
    "tools": ["save_note"],
}


def orchestrator(store: Store) -> list[Agent]:
    turns = [
        call("delegate", DELEGATION, id="call_d"),
        call("save_note", {"text": "keep"}, id="call_s"),  # the sub-agent asks
        text("Saved it."),
        text("Done."),
    ]
    tools = [save_note, plan, delegate]
    return [Agent("assistant", scripted_model(turns), tools=tools, memory=Memory(store))]


async def test_the_crash_sweep_asks_a_sub_agents_question_under_the_sub_agents_id(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    emit = EventWriter.emit

    def without_questions(writer: EventWriter, event: WireEvent) -> int:
        # As if the process died after storing the question, before logging it.
        return writer.last_id if event.type == "confirmation-request" else emit(writer, event)

    async with service(sqlite_url, orchestrator) as svc:
        with monkeypatch.context() as patched:
            patched.setattr(EventWriter, "emit", without_questions)
            run_id = await svc.runs.start(OWNER, "t1", "save keep")
            await svc.settle("t1")
        dead = await svc.store.take_over(run_id, "dead-process", lease_until=now_ms() - 1)
        await svc.store.update_run_status(run_id, "running", epoch=dead.lease_epoch)

        await svc.runs.sweep_interrupted()
        log = [e for _, e in await svc.log("t1")]
        await svc.runs.confirm(OWNER, await svc.request_id("t1"), {"approved": True})
        await svc.settle("t1")
        after = [e for _, e in await svc.log("t1")]

    (spawned,) = [e for e in log if e.type == "agent-spawned"]
    (asked,) = [e for e in log if e.type == "confirmation-request"]
    assert asked.agent_id == spawned.agent_id
    assert asked.payload.tool_call_id == "call_s"
    assert after[-1].type == "run-finish"
    assert after[-1].payload.status == "completed"


async def test_cancelling_a_run_that_waits_on_a_sub_agent_ends_it_and_frees_the_thread(
    sqlite_url: str,
) -> None:
    async with service(sqlite_url, orchestrator) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "save keep")
        await svc.settle("t1")
        request_id = await svc.request_id("t1")
        cancelled = await svc.runs.cancel(OWNER, "t1")
        checkpoint = await svc.runs.finisher.checkpoints.exists(run_id)
        status = await svc.runs.status(OWNER, "t1")
        confirmation = await svc.store.get_confirmation(request_id)
        log = [e for _, e in await svc.log("t1")]

    # The waiting sub-agent ends with the run, before its run-finish.
    (spawned,) = [e for e in log if e.type == "agent-spawned"]
    assert [(e.type, e.agent_id) for e in log[-2:]] == [
        ("agent-completed", spawned.agent_id),
        ("run-finish", "agent-001"),
    ]
    assert log[-2].payload.model_dump() == {
        "role": "note keeper",
        "result": "",
        "status": "cancelled",
    }
    assert cancelled is True
    assert checkpoint is False
    assert (status.has_active_run, status.is_suspended) == (False, False)
    assert confirmation is not None
    assert confirmation.status != "pending"
