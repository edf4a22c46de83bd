"""Semantic recall with the deterministic HashEmbedder: matches with their neighbours, by scope."""

from __future__ import annotations

import pytest
from memory_support import sent_texts

from runyard.agent import Agent
from runyard.errors import ConfigurationError
from runyard.memory import Memory, SemanticRecallConfig
from runyard.messages import AgentMessage
from runyard.runtime import MemoryScope
from runyard.storage import Store
from runyard.testing import HashEmbedder, scripted_model, text

TOPICS = [
    ("my cat is called Tom", "Tom is a fine name"),
    ("the weather is grey today", "grey days happen"),
    ("I am learning the violin", "violin takes practice"),
    ("my flight leaves Monday", "have a good flight"),
    ("lunch was pasta again", "pasta is good"),
]


async def _converse(agent: Agent, thread_id: str, user: str, turns: list[tuple[str, str]]) -> None:
    for question, _ in turns:
        await agent.generate(question, thread_id=thread_id, resource_id=user)


def _recall(top_k: int = 1, scope: str = "thread") -> SemanticRecallConfig:
    return SemanticRecallConfig(embedder=HashEmbedder(), top_k=top_k, scope=scope)  # type: ignore[arg-type]


async def test_a_match_comes_back_with_two_messages_before_and_one_after(store: Store) -> None:
    model = scripted_model([text(answer) for _, answer in TOPICS] + [text("Tom, yes")])
    agent = Agent("a", model, memory=Memory(store, last_messages=2, semantic_recall=_recall()))
    await _converse(agent, "t1", "alice", TOPICS)

    await agent.generate("what is my cat called", thread_id="t1", resource_id="alice")

    # the match ("my cat is called Tom") opens the thread: nothing before it, its answer after
    assert sent_texts(model) == [
        "my cat is called Tom",
        "Tom is a fine name",
        "lunch was pasta again",
        "pasta is good",
        "what is my cat called",
    ]


async def test_a_match_in_the_middle_brings_its_range(store: Store) -> None:
    model = scripted_model([text(answer) for _, answer in TOPICS] + [text("practice daily")])
    agent = Agent("a", model, memory=Memory(store, last_messages=2, semantic_recall=_recall()))
    await _converse(agent, "t1", "alice", TOPICS)

    await agent.generate("how is the violin learning", thread_id="t1", resource_id="alice")

    assert sent_texts(model) == [
        "the weather is grey today",
        "grey days happen",
        "I am learning the violin",
        "violin takes practice",
        "lunch was pasta again",
        "pasta is good",
        "how is the violin learning",
    ]


async def test_resource_scope_recalls_the_same_users_other_threads_only(store: Store) -> None:
    model = scripted_model([text("ok")] * 3 + [text("Tom")])
    memory = Memory(store, last_messages=0, semantic_recall=_recall(top_k=3, scope="resource"))
    agent = Agent("a", model, memory=memory)
    await agent.generate("my cat is called Tom", thread_id="a1", resource_id="alice")
    await agent.generate("my cat is called Felix", thread_id="b1", resource_id="bob")
    await agent.generate(
        "my cat is called Nala", thread_id="a2", resource_id="alice", tenant_id="t2"
    )

    await agent.generate("what is my cat called", thread_id="a3", resource_id="alice")

    seen = sent_texts(model)
    assert "my cat is called Tom" in seen
    assert not any("Felix" in s or "Nala" in s for s in seen)


async def test_thread_scope_does_not_reach_other_threads(store: Store) -> None:
    model = scripted_model([text("ok"), text("no idea")])
    agent = Agent("a", model, memory=Memory(store, last_messages=0, semantic_recall=_recall()))
    await agent.generate("my cat is called Tom", thread_id="a1", resource_id="alice")

    await agent.generate("what is my cat called", thread_id="a2", resource_id="alice")

    assert sent_texts(model) == ["what is my cat called"]


async def test_user_and_assistant_text_is_embedded_on_save(store: Store) -> None:
    model = scripted_model([text("Tom is a fine name")])
    agent = Agent("a", model, memory=Memory(store, semantic_recall=_recall(top_k=5)))
    await agent.generate("my cat is called Tom", thread_id="t1", resource_id="alice")

    vector = HashEmbedder().vector("Tom is a fine name")
    hits = await store.query_embeddings(
        vector, tenant_id="default", resource_id="alice", thread_id="t1", top_k=5
    )
    stored = await store.get_messages("t1", tenant_id="default", resource_id="alice")
    assert {h.message_id for h in hits} == {m.id for m in stored}
    assert hits[0].message_id == stored[1].id


async def test_recall_is_off_without_an_embedder_and_on_with_the_env_variable(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Memory(store).recall is None
    with pytest.raises(ConfigurationError, match="RUNYARD_EMBEDDER_MODEL"):
        Memory(store, semantic_recall=True)
    monkeypatch.setenv("RUNYARD_EMBEDDER_MODEL", "openai:text-embedding-3-small")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-used")
    monkeypatch.setenv("RUNYARD_SEMANTIC_RECALL_TOP_K", "7")
    memory = Memory(store)
    assert memory.recall is not None
    assert memory.recall.config.top_k == 7
    assert memory.recall.embedder.model_name.endswith("text-embedding-3-small")
    assert Memory(store, semantic_recall=False).recall is None


async def test_history_without_input_text_skips_recall(store: Store) -> None:
    memory = Memory(store, semantic_recall=_recall())
    scope = MemoryScope("t1", "alice")
    await memory.save(scope, [AgentMessage.user("hello there")], model=scripted_model([]))
    assert len(await memory.history(scope, [], model=scripted_model([]))) == 1
