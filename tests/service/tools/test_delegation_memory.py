"""Sub-agent memory (memory seed): a delegated sub-agent knows only its briefing, the
``conversationContext`` passed with it, and the failed attempts of its task recorded in the
thread's metadata (``iterationLog``)."""

from __future__ import annotations

from typing import Any
from unittest.mock import ANY

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart
from service_harness import OWNER, key, service

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.service.tools import calculator, delegate, plan
from runyard.service.tools.iteration_log import MAX_ATTEMPTS, IterationLog
from runyard.storage import Store
from runyard.testing import Turn, call, scripted_model, text
from runyard.testing.scripted import TurnSource

TASK = {
    "role": "Researcher",
    "instructions": "You research.",
    "briefing": "Find the boiling point of water.",
    "tools": ["calculator"],
}


def prompt(messages: list[ModelMessage]) -> str:
    """The sub-agent's one message."""
    (part,) = [
        p
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, UserPromptPart)
    ]
    assert isinstance(part.content, str)
    return part.content


def agents(turns: list[TurnSource]) -> Any:
    def build(store: Store) -> list[Agent]:
        tools = [calculator, plan, delegate]
        return [Agent("assistant", scripted_model(turns), tools=tools, memory=Memory(store))]

    return build


async def test_the_conversation_context_is_appended_to_the_briefing(sqlite_url: str) -> None:
    briefed: list[str] = []

    def sub_agent(messages: list[ModelMessage]) -> Turn:
        briefed.append(prompt(messages))
        return text("100 C")

    context = {**TASK, "conversationContext": "The user wants metric units."}
    turns: list[TurnSource] = [call("delegate", context), sub_agent, text("100 C it is")]
    async with service(sqlite_url, agents(turns)) as svc:
        await svc.runs.start(OWNER, "t1", "boiling point?")
        await svc.settle("t1")

    assert briefed == [
        "Find the boiling point of water.\n\n## Conversation context\nThe user wants metric units."
    ]


async def test_a_failed_attempt_is_logged_in_the_thread_and_briefs_the_next_attempt(
    sqlite_url: str,
) -> None:
    briefed: list[str] = []

    def failing(_: list[ModelMessage]) -> Turn:
        raise RuntimeError("the search backend is down")

    def succeeding(messages: list[ModelMessage]) -> Turn:
        briefed.append(prompt(messages))
        return text("100 C")

    turns: list[TurnSource] = [
        call("delegate", TASK),  # first run: the sub-agent fails
        failing,
        text("The researcher failed."),
        call("delegate", {**TASK, "role": " researcher"}),  # second run: same task, again
        succeeding,
        text("100 C"),
    ]
    async with service(sqlite_url, agents(turns)) as svc:
        await svc.runs.start(OWNER, "t1", "boiling point?")
        await svc.settle("t1")
        after_failure = await svc.store.get_thread(key("t1"), tenant_id="acme", resource_id="alice")
        await svc.runs.start(OWNER, "t1", "try again")
        await svc.settle("t1")
        after_success = await svc.store.get_thread(key("t1"), tenant_id="acme", resource_id="alice")
        results = [e.payload.result for _, e in await svc.log("t1") if e.type == "tool-result"]

    assert after_failure is not None
    assert after_failure.metadata == {
        "agent": "assistant",
        "runEntry": "http",
        "iterationLog": {"researcher": [{"error": ANY, "at": ANY}]},
    }
    (error,) = [e["error"] for e in after_failure.metadata["iterationLog"]["researcher"]]
    assert "the search backend is down" in error
    assert results[0] == {"result": f"Sub-agent error: {error}"}
    assert briefed == [
        "Find the boiling point of water.\n\n## Earlier attempts at this task failed\n"
        f"1. {error}\nAvoid what made them fail."
    ]
    assert after_success is not None
    assert after_success.metadata == {"agent": "assistant", "runEntry": "http"}


async def test_the_log_keeps_the_last_attempts_of_each_role_and_the_rest_of_the_metadata(
    store: Store,
) -> None:
    await store.save_thread("t1", tenant_id="acme", resource_id="alice", metadata={"agent": "a"})
    log = IterationLog(store, OWNER.scope("t1"))
    for attempt in range(MAX_ATTEMPTS + 2):
        await log.record_failure("Writer", f"failure {attempt}")
    await log.record_failure("Tester", "flaky")

    assert await log.failures("writer") == [f"failure {n}" for n in range(2, MAX_ATTEMPTS + 2)]
    await log.clear("WRITER")
    assert await log.failures("writer") == []
    assert await log.failures("tester") == ["flaky"]
    thread = await store.get_thread("t1", tenant_id="acme", resource_id="alice")
    assert thread is not None
    assert thread.metadata["agent"] == "a"
