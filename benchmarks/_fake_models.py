"""The pydantic-ai ``FunctionModel`` that plays ``_fake_script``'s two turns.

runyard and pydantic-ai share it; LangGraph gets the LangChain chat model of ``_fake_chat_model``,
which does the same. Built with ``holds=True`` (the service race), a run whose prompt is
``hold <token>`` first waits in ``_held_runs.hold`` until the benchmark releases it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from _fake_script import ANSWER, ANSWER_DELTAS, ARGS, TOOL, call_id
from _held_runs import held_token, hold
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.usage import RequestUsage

__all__ = ["add_calling_function_model"]


def _tool_returned(messages: list[pai.ModelMessage]) -> bool:
    last = messages[-1]
    return isinstance(last, pai.ModelRequest) and any(
        isinstance(part, pai.ToolReturnPart) for part in last.parts
    )


# Fixed usage, as the LangChain fake reports: FunctionModel would otherwise estimate tokens on
# every request (about 90 µs), work no real provider adapter does.
_USAGE = RequestUsage(input_tokens=20, output_tokens=5)


def _prompt(messages: list[pai.ModelMessage]) -> str:
    """The user's text when the last message is the user's (a run's first model call), else ""."""
    last = messages[-1]
    parts = last.parts if isinstance(last, pai.ModelRequest) else []
    texts = (p.content for p in parts if isinstance(p, pai.UserPromptPart))
    return next((t for t in texts if isinstance(t, str)), "")


async def _respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
    if _tool_returned(messages):
        return pai.ModelResponse(parts=[pai.TextPart(ANSWER)], usage=_USAGE)
    return pai.ModelResponse(parts=[pai.ToolCallPart(TOOL, dict(ARGS), call_id())], usage=_USAGE)


async def _stream(
    messages: list[pai.ModelMessage], info: AgentInfo
) -> AsyncIterator[str | dict[int, DeltaToolCall]]:
    if _tool_returned(messages):
        for delta in ANSWER_DELTAS:
            yield delta
        return
    yield {0: DeltaToolCall(TOOL, json.dumps(ARGS), tool_call_id=call_id())}


async def _hold_if_asked(messages: list[pai.ModelMessage]) -> None:
    token = held_token(_prompt(messages))
    if token is not None:
        await hold(token)


async def _holding_respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
    await _hold_if_asked(messages)
    return await _respond(messages, info)


async def _holding_stream(
    messages: list[pai.ModelMessage], info: AgentInfo
) -> AsyncIterator[str | dict[int, DeltaToolCall]]:
    await _hold_if_asked(messages)
    async for delta in _stream(messages, info):
        yield delta


def add_calling_function_model(*, holds: bool = False) -> FunctionModel:
    """A ``FunctionModel`` that calls ``add`` first and answers once the tool has returned."""
    if holds:
        return FunctionModel(
            _holding_respond, stream_function=_holding_stream, model_name="add-caller"
        )
    return FunctionModel(_respond, stream_function=_stream, model_name="add-caller")
