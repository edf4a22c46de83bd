"""``RunyardChatModel``: runyard's model layer as a LangChain chat model.

A ``runtime: langchain`` agent names its model as every catalog agent does (``provider:model``,
its fallbacks and settings, the offline demo model); this puts that model behind LangChain's
``BaseChatModel`` so ``create_agent`` drives it. The answer's usage keeps runyard's own figures
(cost, the models that answered) in ``response_metadata["runyard_usage"]`` beside LangChain's
``usage_metadata``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import asdict
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, SystemMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict
from pydantic_ai.models import Model

from runyard.errors import RunError
from runyard.messages import (
    ReasoningPart,
    TextPart,
    ToolCallPart,
    to_langchain_blocks,
)
from runyard.models import (
    ModelCall,
    ModelTurn,
    ReasoningDelta,
    TextDelta,
    ToolSpec,
    Usage,
    has_file_references,
    read_file_references,
)
from runyard.runtime.graph.messages import from_langchain
from runyard.runtime.graph.tools import current_files
from runyard.runtime.middleware import NO_MIDDLEWARE, DeltaChannel, MiddlewareStack, ModelRequest

__all__ = ["RUNYARD_USAGE", "RunyardChatModel"]

RUNYARD_USAGE = "runyard_usage"
"""The ``response_metadata`` key of an answer's usage as runyard counts it."""


class RunyardChatModel(BaseChatModel):
    """``model`` (a resolved model, with ``fallbacks`` and ``settings``) as a chat model; tools
    come with ``bind_tools``, as ``create_agent`` binds them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: Model
    fallbacks: tuple[Model, ...] = ()
    settings: dict[str, Any] | None = None
    tool_specs: tuple[ToolSpec, ...] = ()
    middleware: MiddlewareStack = NO_MIDDLEWARE
    """The agent's middleware, around each model call as in runyard's loop: what it does to
    the request (PII redacted, history summarised, calls limited) and to the answer and its
    streamed deltas holds for a LangChain agent too."""

    @property
    def _llm_type(self) -> str:
        return "runyard"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        specs = []
        for tool in tools:
            function = convert_to_openai_tool(tool)["function"]
            parameters = function.get("parameters") or {"type": "object", "properties": {}}
            specs.append(ToolSpec(function["name"], function.get("description", ""), parameters))
        return self.model_copy(update={"tool_specs": tuple(specs)})

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        raise NotImplementedError("runyard's chat model is asynchronous: use ainvoke or astream")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        call = self._call()

        async def send(request: ModelRequest) -> ModelTurn:
            sent = await _with_files(request)
            return await call.request(
                sent.messages, instructions=sent.instructions, settings=self.settings
            )

        turn = await self.middleware.call_model(self._request(messages), send)
        return ChatResult(generations=[ChatGeneration(message=_answer(turn))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        # The call runs through the middleware in a task of its own; its deltas, through the
        # middleware's filters, come here as it sends them, and the turn (after every
        # ``after_model``) last. LangChain reports each chunk to the run's callbacks.
        streamed = _StreamedCall(self._call(), self.middleware, self.settings)
        task = asyncio.create_task(
            self.middleware.call_model(self._request(messages), streamed.send)
        )
        task.add_done_callback(lambda _: streamed.chunks.put_nowait(None))
        try:
            while (chunk := await streamed.chunks.get()) is not None:
                yield ChatGenerationChunk(message=chunk)
            yield ChatGenerationChunk(message=_last_chunk(task.result()))
        finally:
            task.cancel()

    def _call(self) -> ModelCall:
        return ModelCall(self.model, self.tool_specs, fallbacks=self.fallbacks)

    def _request(self, messages: Sequence[BaseMessage]) -> ModelRequest:
        """The conversation runyard's model layer sends, the system messages as instructions."""
        instructions = "\n\n".join(m.text for m in messages if isinstance(m, SystemMessage))
        conversation = [
            converted
            for m in messages
            if not isinstance(m, SystemMessage) and (converted := from_langchain(m)) is not None
        ]
        return ModelRequest(conversation, instructions, self.model)


class _StreamedCall:
    """A streamed model call's ``send``: its deltas go into ``chunks`` through the middleware's
    filters as they come; it returns the whole turn."""

    def __init__(
        self, call: ModelCall, middleware: MiddlewareStack, settings: dict[str, Any] | None
    ) -> None:
        self.chunks: asyncio.Queue[AIMessageChunk | None] = asyncio.Queue()
        self._call = call
        self._settings = settings
        self._relay = middleware.delta_relay() if middleware.middleware else None

    async def send(self, request: ModelRequest) -> ModelTurn:
        sent = await _with_files(request)
        items = self._call.stream(
            sent.messages, instructions=sent.instructions, settings=self._settings
        )
        turn: ModelTurn | None = None
        async for item in items:
            if isinstance(item, TextDelta):
                self._deltas("text", item.text)
            elif isinstance(item, ReasoningDelta):
                self._deltas("reasoning", item.text)
            elif isinstance(item, ModelTurn):
                turn = item
        for channel, text in self._relay.flush() if self._relay is not None else ():
            self.chunks.put_nowait(_delta(channel, text))
        if turn is None:
            raise RunError("The model stream ended without a response")
        return turn

    def _deltas(self, channel: DeltaChannel, text: str) -> None:
        relay = self._relay
        for passed, passed_text in (
            [(channel, text)] if relay is None else relay.push(channel, text)
        ):
            self.chunks.put_nowait(_delta(passed, passed_text))


async def _with_files(request: ModelRequest) -> ModelRequest:
    """``request`` with the bytes of the stored files its messages name put inline, read from
    the run's file store — innermost, so middleware sees the reference, never the bytes."""
    if not has_file_references(request.messages):
        return request
    messages = await read_file_references(request.messages, current_files())
    return ModelRequest(messages, request.instructions, request.model)


def _delta(channel: DeltaChannel, text: str) -> AIMessageChunk:
    if channel == "text":
        return AIMessageChunk(content=text)
    return AIMessageChunk(content=[{"type": "reasoning", "reasoning": text}])


def _answer(turn: ModelTurn) -> AIMessage:
    parts = turn.message.parts
    calls = [
        {"id": c.tool_call_id, "name": c.tool_name, "args": c.args, "type": "tool_call"}
        for c in turn.message.tool_calls
    ]
    return AIMessage(
        content=_content(parts, text=True),
        tool_calls=calls,
        usage_metadata=_usage_metadata(turn.usage),
        response_metadata=_metadata(turn),
    )


def _last_chunk(turn: ModelTurn) -> AIMessageChunk:
    """What the stream's deltas left out: the calls, whole, other content, and the usage."""
    calls = [
        {
            "id": c.tool_call_id,
            "name": c.tool_name,
            "args": json.dumps(c.args),
            "index": index,
            "type": "tool_call_chunk",
        }
        for index, c in enumerate(turn.message.tool_calls)
    ]
    return AIMessageChunk(
        content=_content(turn.message.parts, text=False),
        tool_call_chunks=calls,
        usage_metadata=_usage_metadata(turn.usage),
        response_metadata=_metadata(turn),
        chunk_position="last",
    )


def _content(parts: Sequence[Any], *, text: bool) -> str | list[str | dict[str, Any]]:
    """The answer's content blocks; without ``text``, only what no delta streamed."""
    kept = [
        p
        for p in parts
        if not isinstance(p, ToolCallPart) and (text or not isinstance(p, TextPart | ReasoningPart))
    ]
    if all(isinstance(p, TextPart) for p in kept):
        return "".join(p.text for p in kept if isinstance(p, TextPart))
    return list(to_langchain_blocks(kept))


def _usage_metadata(usage: Usage) -> UsageMetadata:
    return UsageMetadata(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
    )


def _metadata(turn: ModelTurn) -> dict[str, Any]:
    usage = asdict(turn.usage)
    usage["models"] = list(turn.usage.models)
    return {
        "model_name": turn.model_name,
        "finish_reason": turn.finish_reason,
        RUNYARD_USAGE: usage,
    }
