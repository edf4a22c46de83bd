"""A LangGraph agent keeps the thread: switching an agent's runtime to LangChain's loses nothing.

The same ``Memory`` serves a runyard agent and a ``runtime: langchain`` one (a ``create_agent``
graph over runyard's model layer): the second reads the thread the first wrote, memory's
instructions reach its model, and memory's own tools (working memory) are its tools too.
"""

from __future__ import annotations

from memory_support import instructions, sent_texts

from runyard.agent import Agent
from runyard.agent.graph_agent import GraphAgent
from runyard.memory import WORKING_MEMORY_TOOL, Memory
from runyard.runtime import MemoryScope
from runyard.runtime.graph import AgentGraph, RunyardChatModel
from runyard.storage import Store
from runyard.testing import ScriptedModel, call, scripted_model, text


def _langchain(model: ScriptedModel, memory: Memory) -> GraphAgent:
    graph = AgentGraph(RunyardChatModel(model=model))
    return GraphAgent("lc", model, graph, instructions="Be brief.", memory=memory)


async def test_a_langchain_agent_reads_the_thread_a_runyard_agent_wrote(store: Store) -> None:
    memory = Memory(store)
    before = Agent("a", scripted_model([text("Hello Ann.")]), memory=memory)
    await before.generate("I am Ann", thread_id="t1", resource_id="alice")

    model = scripted_model([text("You are Ann.")])
    result = await _langchain(model, memory).generate(
        "who am I?", thread_id="t1", resource_id="alice"
    )

    assert result.text == "You are Ann."
    assert sent_texts(model) == ["I am Ann", "Hello Ann.", "who am I?"]
    assert instructions(model, 0).startswith("Be brief.")

    after_model = scripted_model([text("Yes.")])
    after = Agent("a", after_model, memory=memory)
    await after.generate("right?", thread_id="t1", resource_id="alice")
    assert sent_texts(after_model)[2:] == ["who am I?", "You are Ann.", "right?"]


async def test_memorys_tools_and_instructions_reach_a_langchain_agent(store: Store) -> None:
    memory = Memory(store, working_memory=True)
    model = scripted_model(
        [
            call(WORKING_MEMORY_TOOL, {"memory": "- Name: Ann"}),
            text("Noted."),
            text("You are Ann."),
        ]
    )
    agent = _langchain(model, memory)
    await agent.generate("I am Ann", thread_id="t1", resource_id="alice")

    assert WORKING_MEMORY_TOOL in model.tools_seen[0]
    assert await memory.get_working_memory(MemoryScope("t9", "alice")) == "- Name: Ann"

    await agent.generate("who am I?", thread_id="t2", resource_id="alice")
    assert "- Name: Ann" in instructions(model, 2)
