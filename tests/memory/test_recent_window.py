"""The recent window: which stored messages reach the model, and whose."""

from __future__ import annotations

import pytest
from memory_support import ALICE, sent, sent_texts

from runyard.agent import Agent
from runyard.memory import Memory
from runyard.messages import AgentMessage, ToolCallPart, ToolResultPart
from runyard.runtime import MemoryScope
from runyard.storage import Store
from runyard.testing import call, scripted_model, text
from runyard.tools import tool


async def test_the_last_messages_of_the_thread_reach_the_model_before_the_input(
    store: Store,
) -> None:
    model = scripted_model([text(f"answer {i}") for i in range(4)])
    agent = Agent("a", model, memory=Memory(store, last_messages=4))
    for i in range(4):
        await agent.generate(f"question {i}", thread_id="t1", resource_id="alice")

    assert sent_texts(model, 0) == ["question 0"]
    assert sent_texts(model, 3) == [
        "question 1",
        "answer 1",
        "question 2",
        "answer 2",
        "question 3",
    ]


async def test_the_window_defaults_to_twenty_messages_from_the_environment(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Memory(store).last_messages == 20
    monkeypatch.setenv("RUNYARD_LAST_MESSAGES", "6")
    assert Memory(store).last_messages == 6
    assert Memory(store, last_messages=3).last_messages == 3


async def test_a_window_never_starts_with_a_tool_result_cut_from_its_call(store: Store) -> None:
    calls = AgentMessage(
        role="assistant",
        parts=[ToolCallPart(tool_call_id="c1", tool_name="lookup", args={})],
        created_at=2,
    )
    results = AgentMessage(
        role="tool",
        parts=[ToolResultPart(tool_call_id="c1", tool_name="lookup", result="42")],
        created_at=3,
    )
    stored = [AgentMessage.user("look it up", created_at=1), calls, results]
    stored.append(AgentMessage.assistant("it is 42", created_at=4))
    await store.save_messages("t-alice", stored, tenant_id="default", resource_id="alice")
    memory = Memory(store, last_messages=2)

    history = await memory.history(ALICE, [], model=scripted_model([]))

    assert [m.id for m in history] == [stored[3].id]


async def test_tool_calls_and_results_of_earlier_turns_are_replayed(store: Store) -> None:
    @tool
    def lookup(key: str) -> str:
        """Look a key up."""
        return f"value of {key}"

    model = scripted_model([call("lookup", {"key": "k"}), text("done"), text("again")])
    agent = Agent("a", model, tools=[lookup], memory=Memory(store))
    await agent.generate("find k", thread_id="t1", resource_id="alice")
    await agent.generate("and now?", thread_id="t1", resource_id="alice")

    assert sent_texts(model) == ["find k", "", "tool:lookup", "done", "and now?"]
    assert sent(model)[2].tool_results[0].result == "value of k"


async def test_one_users_messages_never_reach_another_users_run(store: Store) -> None:
    model = scripted_model([text("noted"), text("hello bob"), text("hello carol")])
    agent = Agent("a", model, memory=Memory(store))
    await agent.generate("my secret is 1234", thread_id="t-a", resource_id="alice")
    await agent.generate("hi", thread_id="t-b", resource_id="bob")
    result = await agent.generate("hi", thread_id="t-a", resource_id="carol")

    assert sent_texts(model, 1) == ["hi"]
    assert sent_texts(model, 2) == ["hi"]  # carol names alice's thread and sees nothing of it
    assert result.finish_reason == "error"  # ... and cannot write into it
    alice = await store.get_messages("t-a", tenant_id="default", resource_id="alice")
    assert [m.text for m in alice if isinstance(m, AgentMessage)] == ["my secret is 1234", "noted"]


async def test_the_same_user_id_in_two_tenants_is_two_people(store: Store) -> None:
    model = scripted_model([text("noted"), text("hello")])
    agent = Agent("a", model, memory=Memory(store))
    await agent.generate("remember x", thread_id="t1", resource_id="sam", tenant_id="acme")
    result = await agent.generate("hi", thread_id="t2", resource_id="sam", tenant_id="globex")

    assert result.text == "hello"
    assert sent_texts(model, 1) == ["hi"]
    memory = Memory(store)
    assert await memory.history(MemoryScope("t1", "sam", "globex"), [], model=model) == []
