"""A scripted model for tests: each request gets the next ``Turn`` of a list, streamed or not.

Built on pydantic-ai's ``FunctionModel``, so it goes through the same model layer as a real
provider; it records what it was sent, so a test can assert on the exact history and tools.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai import messages as pai
from pydantic_ai.models import ModelRequestParameters, StreamedResponse
from pydantic_ai.models.function import (
    AgentInfo,
    DeltaThinkingPart,
    DeltaToolCall,
    FunctionModel,
)
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

__all__ = [
    "ScriptExhaustedError",
    "ScriptedModel",
    "ToolCall",
    "Turn",
    "TurnUsage",
    "call",
    "scripted_model",
    "text",
]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call the scripted model makes; ``id`` defaults to a fresh ``call_<hex>``."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True, slots=True)
class TurnUsage:
    """The token usage a scripted turn reports."""

    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Turn:
    """One scripted response: reasoning, then text, then tool calls, then the output-tool call.

    ``output`` calls the output tool (structured output) with that object. ``usage=None`` lets
    pydantic-ai estimate the tokens.
    """

    text: str = ""
    reasoning: str = ""
    tool_calls: Sequence[ToolCall] = ()
    output: dict[str, Any] | None = None
    usage: TurnUsage | None = None


TurnSource = Turn | Callable[[list[pai.ModelMessage]], Turn]

# The stream being played, so the stream function can put the scripted usage on it at the end
# (FunctionModel estimates a stream's usage item by item and offers no other way to set it).
_OPEN_STREAM: ContextVar[list[StreamedResponse] | None] = ContextVar("_OPEN_STREAM", default=None)


def text(content: str, **kwargs: Any) -> Turn:
    """A turn that answers with ``content``."""
    return Turn(text=content, **kwargs)


def call(name: str, args: dict[str, Any] | None = None, *, id: str | None = None) -> Turn:
    """A turn that makes one tool call."""
    return Turn(tool_calls=[ToolCall(name, args or {}, id)])


class ScriptExhaustedError(AssertionError):
    """The code under test asked the scripted model for more turns than the script has."""


class ScriptedModel(FunctionModel):
    """A ``FunctionModel`` that plays a list of turns, recording every request it gets."""

    def __init__(self, turns: Sequence[TurnSource], *, model_name: str = "scripted") -> None:
        super().__init__(self._respond, stream_function=self._stream, model_name=model_name)
        self._turns = list(turns)
        self.requests: list[list[pai.ModelMessage]] = []
        """The messages of each request, in order."""
        self.tools_seen: list[list[str]] = []
        """The function tools offered with each request, by name."""

    @property
    def remaining(self) -> int:
        """How many turns are left to play."""
        return len(self._turns)

    def expect_no_more_turns(self) -> None:
        """Fail when the code under test stopped before playing the whole script."""
        if self._turns:
            raise AssertionError(f"{len(self._turns)} scripted turn(s) were never requested")

    async def _respond(
        self, messages: list[pai.ModelMessage], info: AgentInfo
    ) -> pai.ModelResponse:
        turn, output_tool = self._next(messages, info)
        parts: list[pai.ModelResponsePart] = []
        if turn.reasoning:
            parts.append(pai.ThinkingPart(turn.reasoning))
        if turn.text:
            parts.append(pai.TextPart(turn.text))
        parts.extend(
            pai.ToolCallPart(name, args, call_id)
            for name, args, call_id in _calls(turn, output_tool)
        )
        usage = _usage(turn)
        return pai.ModelResponse(parts=parts, usage=usage or RequestUsage())

    async def _stream(
        self, messages: list[pai.ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | dict[int, DeltaToolCall] | dict[int, DeltaThinkingPart]]:
        turn, output_tool = self._next(messages, info)
        if turn.reasoning:
            yield {0: DeltaThinkingPart(content=turn.reasoning)}
        for word in re.findall(r"\s*\S+\s*?", turn.text):
            yield word
        for index, (name, args, call_id) in enumerate(_calls(turn, output_tool), start=1):
            yield {index: DeltaToolCall(name, json.dumps(args), tool_call_id=call_id)}
        usage, stream = _usage(turn), _OPEN_STREAM.get()
        if usage is not None and stream:
            stream[0]._usage = usage

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[pai.ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """FunctionModel's stream, with the turn's scripted usage put on it when it ends."""
        holder: list[StreamedResponse] = []
        token = _OPEN_STREAM.set(holder)
        try:
            async with super().request_stream(
                messages, model_settings, model_request_parameters, run_context
            ) as stream:
                holder.append(stream)
                yield stream
        finally:
            _OPEN_STREAM.reset(token)

    def _next(self, messages: list[pai.ModelMessage], info: AgentInfo) -> tuple[Turn, str | None]:
        self.requests.append(list(messages))
        self.tools_seen.append([tool.name for tool in info.function_tools])
        if not self._turns:
            raise ScriptExhaustedError(
                f"The scripted model was asked for turn {len(self.requests)}, "
                f"but its script has only {len(self.requests) - 1}"
            )
        source = self._turns.pop(0)
        turn = source if isinstance(source, Turn) else source(list(messages))
        output_tool = info.output_tools[0].name if info.output_tools else None
        return turn, output_tool


def scripted_model(turns: Sequence[TurnSource], *, model_name: str = "scripted") -> ScriptedModel:
    """A model that answers each request with the next turn (or the turn a callable builds)."""
    return ScriptedModel(turns, model_name=model_name)


def _calls(turn: Turn, output_tool: str | None) -> list[tuple[str, dict[str, Any], str]]:
    calls = [(c.name, c.args, c.id or f"call_{secrets.token_hex(6)}") for c in turn.tool_calls]
    if turn.output is not None:
        if output_tool is None:
            raise AssertionError("The turn has an output, but no output tool was offered")
        calls.append((output_tool, turn.output, f"call_{secrets.token_hex(6)}"))
    return calls


def _usage(turn: Turn) -> RequestUsage | None:
    if turn.usage is None:
        return None
    return RequestUsage(
        input_tokens=turn.usage.input_tokens, output_tokens=turn.usage.output_tokens
    )
