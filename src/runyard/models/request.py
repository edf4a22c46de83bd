"""One model call, streamed or not, through pydantic-ai's direct API: runyard's messages in, a ``ModelTurn`` out.

Both paths build their request with ``request_parameters`` and their result with ``build_turn``,
so a streamed and a non-streamed call of the same response give the same ``ModelTurn``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any, cast

from pydantic_ai import messages as pai
from pydantic_ai.direct import model_request, model_request_stream
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition

from runyard.messages import AgentMessage
from runyard.models.conversion import (
    ConvertedMessages,
    from_model_response,
    parse_tool_args,
    to_model_messages,
)
from runyard.models.errors import ModelProviderError, provider_errors
from runyard.models.fallback import FallbackHook, fallback_of
from runyard.models.resolve import model_label
from runyard.models.specs import OutputSpec, ToolSpec
from runyard.models.turn import (
    FinishReason,
    ModelDelta,
    ModelTurn,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
)
from runyard.models.unlocked_stream import unlock
from runyard.models.usage import usage_from_response

__all__ = ["ModelCall", "build_turn", "request_model", "request_parameters", "stream_model"]

_FINISH_REASONS: dict[str | None, FinishReason] = {
    None: "stop",
    "stop": "stop",
    "tool_call": "stop",  # only the output tool was called: the answer is complete
    "length": "length",
    "content_filter": "content-filter",
    "error": "error",
}


async def request_model(
    model: Model,
    messages: Sequence[AgentMessage],
    *,
    instructions: str | None,
    tools: Sequence[ToolSpec],
    output: OutputSpec | None = None,
    settings: Mapping[str, Any] | None = None,
) -> ModelTurn:
    """One non-streamed model call; a provider failure raises ``ModelProviderError``."""
    call = ModelCall(model, tools, output)
    return await call.request(messages, instructions=instructions, settings=settings)


def stream_model(
    model: Model,
    messages: Sequence[AgentMessage],
    *,
    instructions: str | None,
    tools: Sequence[ToolSpec],
    output: OutputSpec | None = None,
    settings: Mapping[str, Any] | None = None,
) -> AsyncIterator[ModelDelta | ModelTurn]:
    """One streamed model call: deltas as they arrive, then the ``ModelTurn`` as the last item.

    A provider failure, before or during the stream, raises ``ModelProviderError``. Cancelling
    the consuming task closes the provider stream. Consumers that may stop early should iterate
    under ``contextlib.aclosing`` so the request is closed at once.
    """
    call = ModelCall(model, tools, output)
    return call.stream(messages, instructions=instructions, settings=settings)


class ModelCall:
    """The model calls of one run: what stays the same from one call to the next is built once.

    That is the request parameters (for the instructions of the last call), the model's label,
    and, with ``reuse_messages``, each message's pydantic-ai form: the transcript grows by a
    response and its results per step, so converting all of it for every call costs a step more
    each time. A message is reused only while it is the very object converted before (and gets
    the same instructions), so ``reuse_messages`` is for callers whose messages are not changed
    in place once recorded (the run's own message list); pydantic-ai's own agent reuses its
    history across requests the same way.
    """

    def __init__(
        self,
        model: Model,
        tools: Sequence[ToolSpec],
        output: OutputSpec | None = None,
        *,
        label: str | None = None,
        reuse_messages: bool = False,
        fallbacks: Sequence[Model] = (),
        on_fallback: FallbackHook | None = None,
    ) -> None:
        self.model = model
        self.tools = tools
        self.output = output
        self.label = label if label is not None else model_label(model)
        self._chain = [(model, self.label), *((m, model_label(m)) for m in fallbacks)]
        """The models tried in turn, with their labels (``runyard.models.fallback``)."""
        self._on_fallback = on_fallback
        self._parameters: tuple[str | None, ModelRequestParameters] | None = None
        self._converted: ConvertedMessages | None = {} if reuse_messages else None

    async def request(
        self,
        messages: Sequence[AgentMessage],
        *,
        instructions: str | None,
        settings: Mapping[str, Any] | None = None,
    ) -> ModelTurn:
        """One non-streamed model call; a provider failure raises ``ModelProviderError`` once
        every fallback model failed too."""
        sent = _Request(
            to_model_messages(messages, instructions=instructions, reuse=self._converted),
            _settings(settings),
            self._parameters_for(instructions),
        )
        chain = self._chain
        for (model, label), (_, next_label) in pairwise(chain):
            try:
                return await self._request_one(model, label, sent)
            except ModelProviderError as exc:
                await self._switch(exc, label, next_label)
        model, label = chain[-1]
        return await self._request_one(model, label, sent)

    def stream(
        self,
        messages: Sequence[AgentMessage],
        *,
        instructions: str | None,
        settings: Mapping[str, Any] | None = None,
    ) -> AsyncIterator[ModelDelta | ModelTurn]:
        """One streamed model call, as ``stream_model``; the next model serves it when one
        fails before anything of its answer was yielded."""
        sent = _Request(
            to_model_messages(messages, instructions=instructions, reuse=self._converted),
            _settings(settings),
            self._parameters_for(instructions),
        )
        if len(self._chain) == 1:  # no fallbacks: no generator between the model and the reader
            return self._stream_one(self.model, self.label, sent)
        return self._stream_chain(sent)

    async def _stream_chain(self, sent: _Request) -> AsyncIterator[ModelDelta | ModelTurn]:
        chain = self._chain
        for (model, label), (_, next_label) in pairwise(chain):
            started = False
            try:
                # Closed here, not by the garbage collector, when the reader stops early.
                async with aclosing(self._stream_one(model, label, sent)) as items:
                    async for item in items:
                        started = True
                        yield item
                return
            except ModelProviderError as exc:
                if started:  # the client has part of this answer: it cannot be taken back
                    raise
                await self._switch(exc, label, next_label)
        model, label = chain[-1]
        async with aclosing(self._stream_one(model, label, sent)) as items:
            async for item in items:
                yield item

    async def _request_one(self, model: Model, label: str, sent: _Request) -> ModelTurn:
        with provider_errors(model):
            response = await model_request(
                model,
                sent.messages,
                model_settings=sent.settings,
                model_request_parameters=sent.parameters,
            )
        return _turn(label, response, self.output)

    async def _stream_one(
        self, model: Model, label: str, sent: _Request
    ) -> AsyncGenerator[ModelDelta | ModelTurn]:
        output = self.output
        opened = model_request_stream(
            model,
            sent.messages,
            model_settings=sent.settings,
            model_request_parameters=sent.parameters,
        )
        deltas = _DeltaMapper(output.name if output else None)
        with provider_errors(model):
            async with opened as stream:
                unlock(stream)
                async for event in stream:
                    delta = deltas.map(event)
                    if delta is not None:
                        yield delta
                response = stream.get()
        yield _turn(label, response, output)

    async def _switch(self, error: ModelProviderError, failed: str, next_model: str) -> None:
        switch = fallback_of(error, failed, next_model)
        if self._on_fallback is not None:
            await self._on_fallback(switch)

    def _parameters_for(self, instructions: str | None) -> ModelRequestParameters:
        cached = self._parameters
        if cached is None or cached[0] != instructions:
            cached = (instructions, request_parameters(instructions, self.tools, self.output))
            self._parameters = cached
        return cached[1]


@dataclass(frozen=True, slots=True)
class _Request:
    """What one call sends, the same to every model it tries."""

    messages: list[pai.ModelMessage]
    settings: ModelSettings | None
    parameters: ModelRequestParameters


def request_parameters(
    instructions: str | None, tools: Sequence[ToolSpec], output: OutputSpec | None
) -> ModelRequestParameters:
    """What pydantic-ai needs to know about the tools, the output tool and the instructions."""
    function_tools = [
        ToolDefinition(name=t.name, description=t.description, parameters_json_schema=t.parameters)
        for t in tools
    ]
    instruction_parts = [pai.InstructionPart(instructions)] if instructions else None
    if output is None:
        return ModelRequestParameters(
            function_tools=function_tools, instruction_parts=instruction_parts
        )
    output_tool = ToolDefinition(
        name=output.name,
        description=output.description,
        parameters_json_schema=output.parameters,
        kind="output",
    )
    return ModelRequestParameters(
        function_tools=function_tools,
        output_mode="tool",
        output_tools=[output_tool],
        allow_text_output=False,
        instruction_parts=instruction_parts,
    )


def build_turn(model: Model, response: pai.ModelResponse, output: OutputSpec | None) -> ModelTurn:
    """The ``ModelTurn`` for a finished response: the output-tool call is split off into ``output``."""
    return _turn(model_label(model), response, output)


def _turn(label: str, response: pai.ModelResponse, output: OutputSpec | None) -> ModelTurn:
    output_args: dict[str, Any] | None = None
    parts: list[pai.ModelResponsePart] = []
    for part in response.parts:
        if output and isinstance(part, pai.ToolCallPart) and part.tool_name == output.name:
            output_args = parse_tool_args(part.args) if output_args is None else output_args
        else:
            parts.append(part)
    # Copy the response only when the output-tool call was split off: the copy is measurable
    # on the hot path of every model call.
    kept = response if len(parts) == len(response.parts) else replace(response, parts=parts)
    message = from_model_response(kept)
    return ModelTurn(
        message=message,
        usage=usage_from_response(response, label),
        finish_reason=_finish_reason(message, response),
        output=output_args,
        model_name=label,
    )


def _finish_reason(message: AgentMessage, response: pai.ModelResponse) -> FinishReason:
    if message.tool_calls:
        return "tool-calls"
    return _FINISH_REASONS.get(response.finish_reason, "other")


def _settings(settings: Mapping[str, Any] | None) -> ModelSettings | None:
    return cast(ModelSettings, dict(settings)) if settings is not None else None


class _DeltaMapper:
    """Turns pydantic-ai stream events into runyard deltas, hiding the output tool's arguments."""

    def __init__(self, output_tool: str | None) -> None:
        self._output_tool = output_tool
        self._output_indexes: set[int] = set()

    def map(self, event: pai.ModelResponseStreamEvent) -> ModelDelta | None:
        if isinstance(event, pai.PartStartEvent):
            return self._start(event.index, event.part)
        if isinstance(event, pai.PartDeltaEvent):
            return self._delta(event.index, event.delta)
        return None  # part ends and FinalResultEvent say nothing new

    def _start(self, index: int, part: pai.ModelResponsePart) -> ModelDelta | None:
        if isinstance(part, pai.TextPart):
            return TextDelta(part.content) if part.content else None
        if isinstance(part, pai.ThinkingPart):
            return ReasoningDelta(part.content) if part.content else None
        if isinstance(part, pai.ToolCallPart):
            if part.tool_name == self._output_tool:
                self._output_indexes.add(index)
                return None
            return ToolCallDelta(part.tool_call_id, part.tool_name, _args_text(part.args))
        return None

    def _delta(self, index: int, delta: pai.ModelResponsePartDelta) -> ModelDelta | None:
        if isinstance(delta, pai.TextPartDelta):
            return TextDelta(delta.content_delta) if delta.content_delta else None
        if isinstance(delta, pai.ThinkingPartDelta):
            return ReasoningDelta(delta.content_delta) if delta.content_delta else None
        if isinstance(delta, pai.ToolCallPartDelta):
            if delta.tool_name_delta is not None and delta.tool_name_delta == self._output_tool:
                self._output_indexes.add(index)
            if index in self._output_indexes:
                return None
            args = _args_text(delta.args_delta)
            if args is None and delta.tool_name_delta is None and delta.tool_call_id is None:
                return None
            return ToolCallDelta(delta.tool_call_id, delta.tool_name_delta, args)
        return None


def _args_text(args: str | Mapping[str, Any] | None) -> str | None:
    if not args:
        return None
    return args if isinstance(args, str) else json.dumps(args)
