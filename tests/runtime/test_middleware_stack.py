"""The middleware hooks and their order: an onion for model and tool calls, list order for deltas."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from runyard import Agent, Middleware, ToolError
from runyard.messages import AgentMessage, TextPart
from runyard.models import ModelTurn
from runyard.runtime.middleware import (
    CallTool,
    DeltaChannel,
    DeltaFilter,
    ModelRequest,
    ToolCallRequest,
)
from runyard.testing import Turn, call, scripted_model, text
from runyard.tools import tool


@tool
def echo(word: str) -> str:
    """Say the word back."""
    return word


class _Upper:
    def push(self, delta: str) -> str:
        return delta.upper()

    def flush(self) -> str:
        return ""


class _Suffix:
    def __init__(self, mark: str) -> None:
        self.mark = mark

    def push(self, delta: str) -> str:
        return delta + self.mark

    def flush(self) -> str:
        return ""


class Recording(Middleware):
    """Writes every hook it runs into ``log`` under its name."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    async def before_model(self, request: ModelRequest) -> ModelRequest:
        self.log.append(f"{self.name}:before_model")
        return request

    async def after_model(self, turn: ModelTurn) -> ModelTurn:
        self.log.append(f"{self.name}:after_model")
        return turn

    async def wrap_tool_call(self, request: ToolCallRequest, call_next: CallTool) -> Any:
        self.log.append(f"{self.name}:tool_in")
        result = await call_next(request)
        self.log.append(f"{self.name}:tool_out")
        return result


async def test_the_first_listed_middleware_is_the_outermost_of_model_and_tool_calls() -> None:
    log: list[str] = []
    model = scripted_model([call("echo", {"word": "hi"}), text("done")])
    agent = Agent(
        "a",
        model,
        tools=[echo],
        middleware=[Recording("outer", log), Recording("inner", log)],
    )

    result = await agent.generate("go")

    assert result.text == "done"
    model_call = [
        "outer:before_model",
        "inner:before_model",
        "inner:after_model",
        "outer:after_model",
    ]
    tool_call = ["outer:tool_in", "inner:tool_in", "inner:tool_out", "outer:tool_out"]
    assert log == [*model_call, *tool_call, *model_call]


async def test_deltas_pass_the_filters_in_list_order() -> None:
    class Shout(Middleware):
        def delta_filter(self, channel: DeltaChannel) -> DeltaFilter | None:
            return _Upper() if channel == "text" else None

    class Mark(Middleware):
        def delta_filter(self, channel: DeltaChannel) -> DeltaFilter | None:
            return _Suffix("!") if channel == "text" else None

    agent = Agent(
        "a", scripted_model([Turn(text="a b", reasoning="hm")]), middleware=[Mark(), Shout()]
    )
    stream = await agent.stream("go")
    deltas = [(c.type, c.delta) for c in [c async for c in stream] if "delta" in c.type]

    # Mark first, then Shout: " b" → " b!" → " B!"; the reasoning channel is left alone.
    assert deltas == [("reasoning-delta", "hm"), ("text-delta", "A!"), ("text-delta", " B!")]


async def test_before_model_rewrites_what_the_model_reads_but_not_the_run_history() -> None:
    class Prefix(Middleware):
        async def before_model(self, request: ModelRequest) -> ModelRequest:
            note = AgentMessage(role="user", parts=[TextPart(text="Be brief.")])
            return replace(request, messages=[note, *request.messages])

    model = scripted_model([text("ok")])
    agent = Agent("a", model, middleware=[Prefix()])

    result = await agent.generate("hello")

    assert "Be brief." in repr(model.requests[0])
    assert [m.text for m in result.messages] == ["ok"]


async def test_a_tool_middleware_may_answer_in_the_tools_place_or_refuse_the_call() -> None:
    class Canned(Middleware):
        async def wrap_tool_call(self, request: ToolCallRequest, call_next: CallTool) -> Any:
            if request.args["word"] == "secret":
                raise ToolError("not allowed")
            if request.args["word"] == "cached":
                return "from cache"
            return await call_next(replace(request, args={"word": request.args["word"] * 2}))

    model = scripted_model(
        [
            Turn(
                tool_calls=[
                    call("echo", {"word": "secret"}, id="s").tool_calls[0],
                    call("echo", {"word": "cached"}, id="c").tool_calls[0],
                    call("echo", {"word": "ab"}, id="a").tool_calls[0],
                ]
            ),
            text("done"),
        ]
    )
    agent = Agent("a", model, tools=[echo], middleware=[Canned()])
    stream = await agent.stream("go")
    results = [
        (c.tool_call_id, c.output, c.is_error)
        for c in [c async for c in stream]
        if c.type == "tool-result"
    ]

    assert results == [("s", "not allowed", True), ("c", "from cache", False), ("a", "abab", False)]
