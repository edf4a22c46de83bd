"""How a run uses memory through the runtime's MemoryProtocol (a small in-memory fake here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse
from pydantic_ai.models import Model

from runyard.agent import Agent
from runyard.errors import ConfigurationError
from runyard.messages import AgentMessage, CustomMessage, ToolCallPart
from runyard.runtime import InMemoryCheckpointStore, MemoryContext, MemoryScope
from runyard.testing import call, scripted_model, text
from runyard.tools import Tool, tool

Message = AgentMessage | CustomMessage


@dataclass
class FakeMemory:
    stored: list[Message] = field(default_factory=list)
    saves: list[list[Message]] = field(default_factory=list)
    extra_instructions: str | None = None
    extra_tools: list[Tool] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    generates_titles: bool = False
    title_model: Model | None = None
    checkpoint_store: InMemoryCheckpointStore | None = None

    async def history(
        self, scope: MemoryScope, input_messages: Sequence[AgentMessage], *, model: Model
    ) -> list[Message]:
        return list(self.stored)

    async def context(self, scope: MemoryScope, *, model: Model) -> MemoryContext:
        return MemoryContext(self.extra_instructions, list(self.extra_tools))

    async def save(self, scope: MemoryScope, messages: Sequence[Message], *, model: Model) -> None:
        self.saves.append(list(messages))
        known = {m.id: i for i, m in enumerate(self.stored)}
        for message in messages:
            if message.id in known:
                self.stored[known[message.id]] = message
            else:
                self.stored.append(message)

    async def get_title(self, scope: MemoryScope) -> str | None:
        return self.titles.get(scope.thread_id)

    async def set_title(self, scope: MemoryScope, title: str) -> None:
        self.titles[scope.thread_id] = title


async def test_history_reaches_the_model_before_the_input_and_the_turn_is_saved() -> None:
    memory = FakeMemory(
        stored=[
            AgentMessage.user("my name is Ann", created_at=1),
            AgentMessage.assistant("hi Ann", created_at=2),
        ]
    )
    model = scripted_model([text("You are Ann.")])
    agent = Agent("m", model, memory=memory)
    await agent.generate("who am I?", thread_id="t1", resource_id="u1")

    sent = model.requests[0]
    assert [type(m).__name__ for m in sent] == ["ModelRequest", "ModelResponse", "ModelRequest"]
    assert isinstance(sent[1], ModelResponse)
    assert [m.text for m in memory.stored if isinstance(m, AgentMessage)] == [
        "my name is Ann",
        "hi Ann",
        "who am I?",
        "You are Ann.",
    ]
    stamps = [m.created_at for m in memory.stored]
    assert stamps == sorted(stamps)
    assert len(set(stamps)) == 4


async def test_unpaired_tool_calls_in_history_never_reach_the_model() -> None:
    dangling = AgentMessage(
        role="assistant",
        parts=[ToolCallPart(tool_call_id="x", tool_name="gone", args={})],
        created_at=1,
    )
    memory = FakeMemory(stored=[AgentMessage.user("hello", created_at=0), dangling])
    model = scripted_model([text("ok")])
    await Agent("m", model, memory=memory).generate("again", thread_id="t", resource_id="u")
    assert not any(isinstance(m, ModelResponse) for m in model.requests[0])


async def test_memory_adds_instructions_and_tools_to_the_run() -> None:
    @tool
    def remember(fact: str) -> str:
        """Remember a fact."""
        return "ok"

    memory = FakeMemory(extra_instructions="## Working Memory\nlikes tea", extra_tools=[remember])
    model = scripted_model([call("remember", {"fact": "tea"}), text("noted")])
    await Agent("m", model, "Be brief.", memory=memory).generate(
        "I like tea", thread_id="t", resource_id="u"
    )
    first = model.requests[0][-1]
    assert isinstance(first, ModelRequest)
    assert first.instructions == "Be brief.\n\n## Working Memory\nlikes tea"
    assert model.tools_seen[0] == ["remember"]


async def test_a_suspended_turn_is_saved_so_the_users_message_is_not_lost() -> None:
    @tool(requires_approval=True)
    def danger() -> str:
        """Dangerous."""
        return "done"

    memory = FakeMemory()
    agent = Agent(
        "m",
        scripted_model([call("danger", id="d"), text("finished")]),
        tools=[danger],
        memory=memory,
    )
    suspended = await agent.generate("do it", thread_id="t", resource_id="u")
    assert [m.role for m in memory.stored] == ["user", "assistant"]  # type: ignore[union-attr]
    await agent.approve("generate", run_id=suspended.run_id, tool_call_id="d")
    assert [m.role for m in memory.stored] == ["user", "assistant", "tool", "assistant"]  # type: ignore[union-attr]


async def test_the_memorys_checkpoint_store_is_used_when_none_is_given() -> None:
    store = InMemoryCheckpointStore()

    @tool(requires_approval=True)
    def danger() -> str:
        """Dangerous."""
        return "done"

    agent = Agent(
        "m",
        scripted_model([call("danger", id="d")]),
        tools=[danger],
        memory=FakeMemory(checkpoint_store=store),
    )
    await agent.generate("do it", thread_id="t", resource_id="u")
    assert len(store) == 1


async def test_a_title_is_generated_once_in_the_background_after_the_first_turn() -> None:
    memory = FakeMemory(generates_titles=True)
    titles = scripted_model([text('"Plan a trip to Lisbon"')])
    agent = Agent(
        "m", scripted_model([text("Sure."), text("Again.")]), memory=memory, title_model=titles
    )
    await agent.generate(
        "Please help me plan a trip to Lisbon in May", thread_id="t", resource_id="u"
    )
    await agent.wait_background()
    assert memory.titles == {"t": "Plan a trip to Lisbon"}
    await agent.generate("And what about June?", thread_id="t", resource_id="u")
    await agent.wait_background()
    assert len(titles.requests) == 1


async def test_a_thread_needs_its_user() -> None:
    agent = Agent("m", scripted_model([text("x")]), memory=FakeMemory())
    with pytest.raises(ConfigurationError, match="resource_id"):
        await agent.generate("hi", thread_id="t")
