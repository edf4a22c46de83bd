"""The three systems under test, each doing the same one-tool run through its own public API.

Each system gets the same ``add(a, b)`` tool (async) from a ``Gate``, which either returns at
once (timing) or holds every call until released (parked memory).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from _fake_chat_model import AddCallingChatModel
from _fake_models import add_calling_function_model
from _fake_script import ANSWER

__all__ = ["SYSTEMS", "Gate", "System", "build", "check"]

PROMPT = "What is 1 + 2?"


@dataclass
class Gate:
    """The tool's body: counts calls and, once ``hold`` is set, waits until ``release``."""

    calls: int = 0
    hold: bool = False
    parked: int = 0
    everyone_in: asyncio.Event = field(default_factory=asyncio.Event)
    expected: int = 0
    opened: asyncio.Event = field(default_factory=asyncio.Event)

    def tool(self) -> Callable[..., Coroutine[Any, Any, int]]:
        gate = self

        async def add(a: int, b: int) -> int:
            """Add two integers."""
            gate.calls += 1
            if gate.hold:
                gate.parked += 1
                if gate.parked == gate.expected:
                    gate.everyone_in.set()
                await gate.opened.wait()
            return a + b

        return add

    def park(self, expected: int) -> None:
        """From now on every call waits; ``everyone_in`` is set once ``expected`` calls wait."""
        self.hold, self.expected, self.parked = True, expected, 0
        self.everyone_in.clear()
        self.opened.clear()

    def release(self) -> None:
        self.hold = False
        self.opened.set()


@dataclass(frozen=True)
class System:
    """One system's one-tool run: ``generate`` returns the answer, ``stream`` the drained items."""

    name: str
    generate: Callable[[], Coroutine[Any, Any, str]]
    stream: Callable[[], Coroutine[Any, Any, list[Any]]]
    streamed_text: Callable[[list[Any]], str]


def _runyard(gate: Gate) -> System:
    from runyard.agent import Agent
    from runyard.runtime import TextDeltaChunk

    agent = Agent("bench", add_calling_function_model(), tools=[gate.tool()])

    async def generate() -> str:
        result = await agent.generate(PROMPT)
        if result.error is not None:
            raise result.error
        return result.text

    async def stream() -> list[Any]:
        return [chunk async for chunk in await agent.stream(PROMPT)]

    def text(items: list[Any]) -> str:
        return "".join(c.delta for c in items if isinstance(c, TextDeltaChunk))

    return System("runyard", generate, stream, text)


def _pydantic_ai(gate: Gate) -> System:
    from pydantic_ai import Agent

    agent = Agent(add_calling_function_model(), tools=[gate.tool()])

    async def generate() -> str:
        return (await agent.run(PROMPT)).output

    async def stream() -> list[Any]:
        async with agent.run_stream_events(PROMPT) as events:
            return [event async for event in events]

    name = "pydantic-ai `Agent.run`"
    return System(name, generate, stream, _pydantic_ai_text)


def _pydantic_ai_text(events: list[Any]) -> str:
    from pydantic_ai import messages as pai

    text = []
    for event in events:
        if isinstance(event, pai.PartStartEvent) and isinstance(event.part, pai.TextPart):
            text.append(event.part.content)
        elif isinstance(event, pai.PartDeltaEvent) and isinstance(event.delta, pai.TextPartDelta):
            text.append(event.delta.content_delta)
    return "".join(text)


def _langgraph(gate: Gate) -> System:
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessageChunk, HumanMessage
    from langchain_core.tools import tool

    graph = create_agent(AddCallingChatModel(), tools=[tool(gate.tool())])

    async def generate() -> str:
        state = await graph.ainvoke({"messages": [HumanMessage(PROMPT)]})
        return str(state["messages"][-1].text)

    async def stream() -> list[Any]:
        items = graph.astream({"messages": [HumanMessage(PROMPT)]}, stream_mode="messages")
        return [item async for item in items]

    def text(items: list[Any]) -> str:
        return "".join(m.text for m, _ in items if isinstance(m, AIMessageChunk))

    return System("LangGraph `create_agent`", generate, stream, text)


def _model_layer(gate: Gate) -> System:
    """No agent: the two model calls of the run, straight through pydantic-ai's direct API.

    runyard makes its model calls this way, so this is the floor its own code sits on.
    """
    from _fake_script import ARGS, TOOL
    from pydantic_ai import messages as pai
    from pydantic_ai.direct import model_request, model_request_stream
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.tools import ToolDefinition

    model = add_calling_function_model()
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    params = ModelRequestParameters(
        function_tools=[
            ToolDefinition(name=TOOL, parameters_json_schema=schema, description="Add.")
        ]
    )
    add = gate.tool()

    def history(call: pai.ModelResponse, result: int) -> list[pai.ModelMessage]:
        (part,) = call.tool_calls
        returned = pai.ModelRequest(parts=[pai.ToolReturnPart(TOOL, result, part.tool_call_id)])
        return [pai.ModelRequest.user_text_prompt(PROMPT), call, returned]

    async def generate() -> str:
        first = [pai.ModelRequest.user_text_prompt(PROMPT)]
        call = await model_request(model, first, model_request_parameters=params)
        answer = await model_request(
            model, history(call, await add(**ARGS)), model_request_parameters=params
        )
        return answer.text or ""

    async def stream() -> list[Any]:
        items: list[Any] = []
        messages: list[pai.ModelMessage] = [pai.ModelRequest.user_text_prompt(PROMPT)]
        for _ in range(2):
            async with model_request_stream(model, messages, model_request_parameters=params) as s:
                items += [event async for event in s]
            response = s.get()
            if response.tool_calls:
                messages = history(response, await add(**ARGS))
        return items

    name = "pydantic-ai model layer alone (the run's 2 model calls)"
    return System(name, generate, stream, _pydantic_ai_text)


SYSTEMS: dict[str, Callable[[Gate], System]] = {
    "runyard": _runyard,
    "pydantic-ai": _pydantic_ai,
    "langgraph": _langgraph,
    "model-layer": _model_layer,
}


def build(key: str) -> tuple[System, Gate]:
    """A ready system and the gate its tool goes through."""
    gate = Gate()
    return SYSTEMS[key](gate), gate


async def check(system: System, gate: Gate) -> None:
    """Fail loudly unless both paths call the tool once and end with the same answer."""
    before = gate.calls
    answer = await system.generate()
    streamed = system.streamed_text(await system.stream())
    if answer != ANSWER or streamed != ANSWER or gate.calls != before + 2:
        raise AssertionError(
            f"{system.name}: answer {answer!r}, streamed {streamed!r}, "
            f"tool calls {gate.calls - before} (expected {ANSWER!r} twice and 2 calls)"
        )
