"""Working memory: the tool that rewrites it, the prompt that shows it, its scope and schema."""

from __future__ import annotations

import json

from memory_support import ALICE, instructions, sent
from pydantic import BaseModel, Field

from runyard.agent import Agent
from runyard.memory import WORKING_MEMORY_TOOL, Memory, WorkingMemoryConfig
from runyard.runtime import MemoryScope
from runyard.storage import Store
from runyard.testing import call, scripted_model, text


async def test_the_tool_stores_the_document_and_the_next_run_sees_it(store: Store) -> None:
    model = scripted_model(
        [
            call(WORKING_MEMORY_TOOL, {"memory": "# About the user\n- Name: Ann"}),
            text("Nice to meet you, Ann."),
            text("You are Ann."),
        ]
    )
    memory = Memory(store, working_memory=True)
    agent = Agent("a", model, instructions="Be brief.", memory=memory)
    await agent.generate("I am Ann", thread_id="t1", resource_id="alice")

    assert WORKING_MEMORY_TOOL in model.tools_seen[0]
    assert "Working memory" not in instructions(model, 0)  # empty documents are not shown
    assert "Name: Ann" not in instructions(model, 1)  # not refreshed within the run

    await agent.generate("who am I?", thread_id="t2", resource_id="alice")
    shown = instructions(model, 2)
    assert shown.startswith("Be brief.")
    assert "## Working memory" in shown
    assert "- Name: Ann" in shown
    assert await memory.get_working_memory(MemoryScope("t9", "alice")) == (
        "# About the user\n- Name: Ann"
    )


async def test_resource_scope_is_shared_by_a_users_threads_and_no_one_else(store: Store) -> None:
    memory = Memory(store, working_memory=WorkingMemoryConfig(scope="resource"))
    assert memory.working_memory is not None
    await memory.working_memory.set(ALICE, "likes tea")

    assert await memory.get_working_memory(MemoryScope("other-thread", "alice")) == "likes tea"
    assert await memory.get_working_memory(MemoryScope("t-bob", "bob")) is None
    assert await memory.get_working_memory(MemoryScope("t-x", "alice", "tenant-2")) is None


async def test_thread_scope_keeps_one_document_per_thread(store: Store) -> None:
    memory = Memory(store, working_memory=WorkingMemoryConfig(scope="thread"))
    assert memory.working_memory is not None
    await memory.working_memory.set(ALICE, "thread notes")

    assert await memory.get_working_memory(ALICE) == "thread notes"
    assert await memory.get_working_memory(MemoryScope("t-other", "alice")) is None


class Profile(BaseModel):
    name: str = Field(description="What the user is called")
    age: int | None = Field(default=None, description="Age in years")


async def test_a_schema_update_is_validated_and_stored_as_json(store: Store) -> None:
    model = scripted_model(
        [
            call(WORKING_MEMORY_TOOL, {"name": "Ann", "age": "not a number"}),
            call(WORKING_MEMORY_TOOL, {"name": "Ann", "age": 41}),
            text("Saved."),
        ]
    )
    memory = Memory(store, working_memory=WorkingMemoryConfig(schema=Profile))
    agent = Agent("a", model, memory=memory)
    await agent.generate("I am Ann, 41", thread_id="t1", resource_id="alice")

    refused = sent(model, 1)[-1].tool_results[0]
    assert refused.is_error
    assert "age" in str(refused.result)
    stored = await memory.get_working_memory(ALICE)
    assert stored is not None
    assert json.loads(stored) == {"name": "Ann", "age": 41}


async def test_a_json_schema_dict_validates_too_and_its_template_lists_the_fields(
    store: Store,
) -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "Where the user lives"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    model = scripted_model(
        [call(WORKING_MEMORY_TOOL, {"town": "Oslo"}), text("ok"), text("ok again")]
    )
    memory = Memory(store, working_memory=WorkingMemoryConfig(schema=schema, scope="thread"))
    agent = Agent("a", model, memory=memory)
    await agent.generate("I live in Oslo", thread_id="t-alice", resource_id="alice")

    assert sent(model, 1)[-1].tool_results[0].is_error
    assert await memory.get_working_memory(ALICE) is None
    assert memory.working_memory is not None
    await memory.working_memory.set(ALICE, '{"city": "Oslo"}')
    await agent.generate("where?", thread_id="t-alice", resource_id="alice")
    assert '"city": "Where the user lives"' in instructions(model)


async def test_a_custom_instruction_replaces_the_default_guidance(store: Store) -> None:
    config = WorkingMemoryConfig(instruction="Track the order number only.", template="- Order:")
    memory = Memory(store, working_memory=config)
    assert memory.working_memory is not None
    await memory.working_memory.set(ALICE, "- Order: 77")

    context = await memory.context(ALICE, model=scripted_model([]))

    assert context.instructions is not None
    assert "Track the order number only." in context.instructions
    assert "- Order: 77" in context.instructions
    assert [t.name for t in context.tools] == [WORKING_MEMORY_TOOL]
