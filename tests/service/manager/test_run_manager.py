"""The run manager: one open run per thread (decided by the database), run-start first and
run-finish last, approvals answered exactly once, cancel at any point, the crash sweep.
"""

from __future__ import annotations

import asyncio
import socket
from base64 import b64encode
from typing import Any
from unittest.mock import ANY

import pytest
from service_harness import OWNER, key, service

from blocking_agents import blocking_agents
from runyard.agent import Agent
from runyard.ids import now_ms
from runyard.memory import Memory
from runyard.messages import ImagePart
from runyard.models.demo_script import demo_png
from runyard.service import (
    RESTARTED,
    ConfirmationAnswered,
    InvalidAnswer,
    RunActive,
    ServiceStopping,
)
from runyard.storage import Store
from runyard.testing import call, scripted_model, text
from runyard.tools import Suspend, ToolContext, tool

TOOLS = '/tool calculator {"expression": "2+3*4"}\n/tool save_note {"text": "buy milk"}'


async def test_a_run_starts_with_run_start_and_ends_with_run_finish(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "hello there")
        await svc.settle("t1")
        log = await svc.log("t1")

    ids = [i for i, _ in log]
    types = [e.type for _, e in log]
    assert ids == list(range(1, len(log) + 1))
    assert types[0] == "run-start"
    assert types[-1] == "run-finish"
    assert set(types[1:-1]) == {"reasoning-delta", "text-delta"}
    assert {e.run_id for _, e in log} == {run_id}
    assert log[-1][1].payload.model_dump() == {"status": "completed", "usage": ANY}


async def test_racing_messages_on_one_thread_have_exactly_one_winner(db_url: str) -> None:
    # Slow enough to outlast fifty racing starts on a loaded machine; the cancel below ends it.
    slow = "/delay 2000\nsome words that take a while"
    async with (
        service(db_url) as one,
        service(db_url) as two,
        service(db_url) as three,
        service(db_url) as four,
        service(db_url) as five,
    ):
        replicas = [one, two, three, four, five]
        results = await asyncio.gather(
            *(svc.runs.start(OWNER, "t1", slow) for svc in replicas for _ in range(10)),
            return_exceptions=True,
        )
        winner = await one.store.get_active_run(key("t1"))
        assert winner is not None
        (driver,) = [svc for svc in replicas if svc.runs.instance_id == winner.lease_owner]
        assert await driver.runs.cancel(OWNER, "t1")

    winners = [r for r in results if isinstance(r, str)]
    assert len(winners) == 1
    assert all(isinstance(r, RunActive) for r in results if not isinstance(r, str))


async def test_a_thread_waiting_for_a_confirmation_rejects_new_messages(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "t1", TOOLS)
        await svc.settle("t1")
        status = await svc.runs.status(OWNER, "t1")
        with pytest.raises(RunActive):
            await svc.runs.start(OWNER, "t1", "another message")

    assert (status.has_active_run, status.is_suspended) == (False, True)


async def test_a_running_thread_rejects_new_messages(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "t1", "/delay 50\nslow words here")
        with pytest.raises(RunActive):
            await svc.runs.start(OWNER, "t1", "another message")
        status = await svc.runs.status(OWNER, "t1")
        await svc.runs.cancel(OWNER, "t1")

    assert (status.has_active_run, status.is_suspended) == (True, False)


async def test_approving_runs_the_tool_and_finishes_the_run(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "t1", TOOLS)
        await svc.settle("t1")
        request = await svc.log("t1")
        await svc.runs.confirm(OWNER, await svc.request_id("t1"), {"approved": True})
        await svc.settle("t1")
        log = await svc.log("t1")

    suspended = [e for _, e in request if e.type == "confirmation-request"]
    assert suspended[0].payload.tool_name == "save_note"
    assert suspended[0].payload.message == 'Allow "save_note" to run?'
    after = [e for _, e in log[len(request) :]]
    results = [e for e in after if e.type == "tool-result"]
    assert results[0].payload.result["text"] == "buy milk"
    assert after[-1].type == "run-finish"
    assert after[-1].payload.status == "completed"
    assert sum(e.type == "run-start" for _, e in log) == 1


async def test_denying_reports_a_tool_error_and_finishes(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "t1", TOOLS)
        await svc.settle("t1")
        await svc.runs.confirm(OWNER, await svc.request_id("t1"), {"approved": False})
        await svc.settle("t1")
        log = [e for _, e in await svc.log("t1")]

    errors = [e for e in log if e.type == "tool-error"]
    assert len(errors) == 1
    assert "denied" in errors[0].payload.error
    assert log[-1].type == "run-finish"
    assert log[-1].payload.status == "completed"


def counting_agents(calls: list[str]) -> Any:
    @tool(requires_approval=True)
    async def launch(target: str) -> dict[str, str]:
        """Launch something irreversible."""
        calls.append(target)
        return {"launched": target}

    def build(store: Store) -> list[Agent]:
        model = scripted_model([call("launch", {"target": "moon"}), text("launched")])
        return [Agent("assistant", model, tools=[launch], memory=Memory(store))]

    return build


async def test_racing_confirms_answer_once_and_run_the_tool_once(db_url: str) -> None:
    calls: list[str] = []
    async with service(db_url, counting_agents(calls)) as svc:
        await svc.runs.start(OWNER, "t1", "go")
        await svc.settle("t1")
        request_id = await svc.request_id("t1")
        results = await asyncio.gather(
            *(svc.runs.confirm(OWNER, request_id, {"approved": True}) for _ in range(10)),
            return_exceptions=True,
        )
        await svc.settle("t1")
        types = await svc.types("t1")

    assert results.count(None) == 1
    assert all(isinstance(r, ConfirmationAnswered) for r in results if r is not None)
    assert calls == ["moon"]
    assert types.count("tool-result") == 1
    assert types[-1] == "run-finish"


async def test_an_answer_that_does_not_fit_the_tool_is_refused_and_stays_pending(
    sqlite_url: str,
) -> None:
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "t1", TOOLS)
        await svc.settle("t1")
        request_id = await svc.request_id("t1")
        with pytest.raises(InvalidAnswer):
            await svc.runs.confirm(OWNER, request_id, {"approved": "yes"})
        still = await svc.store.get_confirmation(request_id)

    assert still is not None
    assert still.status == "pending"


async def test_cancel_during_a_tool_settles_the_call_and_ends_cancelled(sqlite_url: str) -> None:
    started = asyncio.Event()
    async with service(sqlite_url, blocking_agents(started)) as svc:
        await svc.runs.start(OWNER, "t1", "go")
        async with asyncio.timeout(20):
            await started.wait()
        first = await svc.runs.cancel(OWNER, "t1")
        second = await svc.runs.cancel(OWNER, "t1")
        log = [e for _, e in await svc.log("t1")]
        status = await svc.runs.status(OWNER, "t1")

    assert (first, second) == (True, False)
    assert [e.type for e in log] == ["run-start", "tool-call", "tool-error", "run-finish"]
    assert log[2].payload.model_dump() == {"toolCallId": "call_w", "error": "Cancelled by user"}
    assert log[3].payload.model_dump() == {
        "status": "cancelled",
        "reason": "user_cancelled",
        "usage": ANY,
    }
    assert not status.has_active_run


async def test_cancel_while_a_confirmation_is_pending_closes_the_run(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        run_id = await svc.runs.start(OWNER, "t1", TOOLS)
        await svc.settle("t1")
        request_id = await svc.request_id("t1")
        suspended = await svc.store.load_checkpoint(run_id)
        assert await svc.runs.cancel(OWNER, "t1")
        with pytest.raises(ConfirmationAnswered):
            await svc.runs.confirm(OWNER, request_id, {"approved": True})
        log = [e for _, e in await svc.log("t1")]
        checkpoint = await svc.store.load_checkpoint(run_id)
        next_run = await svc.runs.start(OWNER, "t1", "hello again")
        await svc.settle("t1")

    assert log[-1].type == "run-finish"
    # Ended from outside its driver, it still reports what it used up to its suspension.
    assert suspended is not None
    used = suspended["usage"]
    assert log[-1].payload.model_dump() == {
        "status": "cancelled",
        "reason": "user_cancelled",
        "usage": {
            "inputTokens": used["input_tokens"],
            "outputTokens": used["output_tokens"],
            "totalTokens": used["input_tokens"] + used["output_tokens"],
            "cost": 0.0,
            "models": used["models"],
        },
    }
    assert used["input_tokens"] > 0
    assert checkpoint is None
    assert next_run != run_id


async def test_cancel_with_nothing_running_is_a_no_op(sqlite_url: str) -> None:
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "t1", "hello")
        await svc.settle("t1")
        assert await svc.runs.cancel(OWNER, "t1") is False
        assert (await svc.types("t1")).count("run-finish") == 1


async def test_the_crash_sweep_closes_expired_runs_and_keeps_live_and_suspended_ones(
    sqlite_url: str,
) -> None:
    host = socket.gethostname()
    async with service(sqlite_url) as svc:
        await svc.runs.start(OWNER, "waiting", TOOLS)
        await svc.settle("waiting")
        await svc.store.save_thread(key("crashed"), tenant_id="acme", resource_id="alice")
        await svc.store.open_run(
            "run_dead",
            thread_id=key("crashed"),
            tenant_id="acme",
            owner=f"{host}-dead",
            lease_until=now_ms() - 1,
        )
        # Live neighbours, on this host and another: their leases have not expired.
        for run_id, owner in (("run_near", f"{host}-alive"), ("run_far", "other-host-alive")):
            await svc.store.open_run(
                run_id,
                thread_id=run_id,
                tenant_id="acme",
                owner=owner,
                lease_until=now_ms() + 60_000,
            )

        closed = await svc.runs.sweep_interrupted()
        crashed = [e for _, e in await svc.log("crashed")]
        waiting = await svc.runs.status(OWNER, "waiting")
        dead = await svc.store.get_run("run_dead")
        alive = [await svc.store.get_run(run_id) for run_id in ("run_near", "run_far")]

    assert closed == ["run_dead"]
    assert [e.type for e in crashed] == ["run-finish"]
    assert crashed[0].payload.model_dump() == {"status": "error", "reason": RESTARTED}
    assert dead is not None
    assert dead.status == "interrupted"
    assert [(r.is_open, r.lease_epoch) for r in alive if r is not None] == [(True, 1), (True, 1)]
    assert waiting.is_suspended


def asking_agents(store: Store) -> list[Agent]:
    @tool(resume_schema={"type": "object", "properties": {"answers": {"type": "array"}}})
    async def survey(topic: str, ctx: ToolContext) -> Any:
        """Ask the user a few questions."""
        if ctx.resume_data is None:
            return Suspend(
                {
                    "inputType": "questions",
                    "message": f"A few questions about {topic}",
                    "introMessage": "Please answer",
                    "questions": [
                        {
                            "id": "q1",
                            "question": "Which color?",
                            "type": "single",
                            "options": ["red", "blue"],
                        }
                    ],
                    "severity": "info",
                    "unknownField": 1,
                }
            )
        return {"answers": ctx.resume_data["answers"]}

    model = scripted_model([call("survey", {"topic": "paint"}), text("thanks")])
    return [Agent("assistant", model, tools=[survey], memory=Memory(store))]


async def test_a_suspending_tool_asks_rich_questions_and_gets_the_answers(sqlite_url: str) -> None:
    answer = {"approved": True, "answers": [{"questionId": "q1", "selectedOptions": ["red"]}]}
    async with service(sqlite_url, asking_agents) as svc:
        await svc.runs.start(OWNER, "t1", "paint")
        await svc.settle("t1")
        (request,) = [e for _, e in await svc.log("t1") if e.type == "confirmation-request"]
        await svc.runs.confirm(OWNER, request.payload.request_id, answer)
        await svc.settle("t1")
        (result,) = [e for _, e in await svc.log("t1") if e.type == "tool-result"]

    wire = request.payload.model_dump(mode="json", by_alias=True)
    assert wire["inputType"] == "questions"
    assert wire["questions"][0]["options"] == ["red", "blue"]
    assert (wire["severity"], wire["message"], wire["introMessage"]) == (
        "info",
        "A few questions about paint",
        "Please answer",
    )
    assert result.payload.result == {"answers": answer["answers"]}


async def test_the_first_turn_names_the_thread(sqlite_url: str) -> None:
    async with service(sqlite_url, titles=True) as svc:
        await svc.runs.start(OWNER, "t1", "Plan a trip to the mountains next week")
        await svc.settle("t1")
        log = [e for _, e in await svc.log("t1")]
        thread = await svc.store.get_thread(key("t1"), tenant_id="acme", resource_id="alice")

    (titled,) = [e for e in log if e.type == "thread-title-updated"]
    assert thread is not None
    assert thread.title == titled.payload.title
    assert [e.type for e in log][-2:] == ["thread-title-updated", "run-finish"]


async def test_a_first_message_of_attachments_alone_names_the_thread_after_them(
    sqlite_url: str,
) -> None:
    picture = ImagePart(base64=b64encode(demo_png(size=4)).decode(), mime_type="image/png")
    async with service(sqlite_url, titles=True) as svc:
        await svc.runs.start(OWNER, "t1", "", content=[picture])
        await svc.settle("t1")
        log = [e for _, e in await svc.log("t1")]
        thread = await svc.store.get_thread(key("t1"), tenant_id="acme", resource_id="alice")

    (titled,) = [e for e in log if e.type == "thread-title-updated"]
    assert titled.payload.title == "Image"
    assert thread is not None
    assert thread.title == "Image"


async def test_the_crash_sweep_keeps_a_run_that_died_while_suspending_resumable(
    sqlite_url: str,
) -> None:
    async with service(sqlite_url) as svc:
        run_id = await svc.runs.start(OWNER, "t1", TOOLS)
        await svc.settle("t1")
        # As if the process died after storing its question, before flipping the status.
        dead = await svc.store.take_over(run_id, "dead-process", lease_until=now_ms() - 1)
        await svc.store.update_run_status(run_id, "running", epoch=dead.lease_epoch)

        closed = await svc.runs.sweep_interrupted()
        status = await svc.runs.status(OWNER, "t1")
        await svc.runs.confirm(OWNER, await svc.request_id("t1"), {"approved": True})
        await svc.settle("t1")
        types = await svc.types("t1")

    assert closed == [run_id]
    assert status.is_suspended
    assert types.count("confirmation-request") == 1
    assert types[-1] == "run-finish"
    assert "tool-result" in types


async def test_a_segment_that_fails_outside_its_error_handling_closes_its_run(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with service(sqlite_url) as svc:
        original = svc.store.close_run

        async def fail_once(*args: Any, **kwargs: Any) -> None:
            # The driver's own ending fails (its run-finish and close were one write).
            monkeypatch.setattr(svc.store, "close_run", original)
            raise OSError("connection reset")

        monkeypatch.setattr(svc.store, "close_run", fail_once)
        failed_id = await svc.runs.start(OWNER, "t1", "hello")
        await svc.settle("t1")
        failed = await svc.store.get_run(failed_id)
        await svc.runs.start(OWNER, "t1", "hello again")
        await svc.settle("t1")
        types = await svc.types("t1")

    assert failed is not None
    assert (failed.status, failed.reason) == ("failed", "the run failed: connection reset")
    assert types[-1] == "run-finish"


async def test_closing_hands_off_a_run_that_outlives_its_settle_time(sqlite_url: str) -> None:
    started, swallowed = asyncio.Event(), asyncio.Event()

    @tool
    async def stubborn() -> str:
        """Ignore the first request to stop."""
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            swallowed.set()
        await asyncio.Event().wait()
        return "never"

    def build(store: Store) -> list[Agent]:
        model = scripted_model([call("stubborn", id="call_s"), text("unreachable")])
        return [Agent("assistant", model, tools=[stubborn], memory=Memory(store))]

    async with service(sqlite_url, build) as svc:
        run_id = await svc.runs.start(OWNER, "t1", "go")
        async with asyncio.timeout(20):
            await started.wait()
            # The hand-off's abort is swallowed; the run's task is then cancelled, so closing
            # returns instead of waiting on the run for ever.
            await svc.runs.aclose(settle_seconds=0.01)
            before = now_ms()
        row = await svc.store.get_run(run_id)
        types = await svc.types("t1")
        admitted = svc.runs.start(OWNER, "t2", "hello")
        with pytest.raises(ServiceStopping):
            await admitted

    assert swallowed.is_set()
    assert row is not None
    # Not finished: still running, still its lease (same owner and epoch), which ended now.
    assert (row.status, row.lease_owner, row.lease_epoch) == ("running", svc.runs.instance_id, 1)
    assert row.lease_expires_at <= before
    assert "run-finish" not in types
