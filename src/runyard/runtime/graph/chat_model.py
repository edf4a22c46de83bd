"""``RunyardChatModel``: runyard's model layer as a LangChain chat model.

A ``runtime: langchain`` agent names its model as every catalog agent does (``provider:model``,
its fallbacks and settings, the offline demo model); this puts that model behind LangChain's
``BaseChatModel`` so ``create_agent`` drives it. The answer's usage keeps runyard's own figures
(cost, the models that answered) in ``response_metadata["runyard_usage"]`` beside LangChain's
``usage_metadata``.
"""

from __future__ import annotations

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

from runyard.messages import (
    AgentMessage,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    to_langchain_blocks,
)
from runyard.models import ModelCall, ModelTurn, ReasoningDelta, TextDelta, ToolSpec, Usage
from runyard.runtime.graph.messages import from_langchain

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
        conversation, instructions = _request(messages)
        turn = await self._call().request(
            conversation, instructions=instructions, settings=self.settings
        )
        return ChatResult(generations=[ChatGeneration(message=_answer(turn))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        conversation, instructions = _request(messages)
        items = self._call().stream(conversation, instructions=instructions, settings=self.settings)
        async for item in items:
            if isinstance(item, TextDelta):
                chunk = AIMessageChunk(content=item.text)
            elif isinstance(item, ReasoningDelta):
                chunk = AIMessageChunk(content=[{"type": "reasoning", "reasoning": item.text}])
            elif isinstance(item, ModelTurn):
                chunk = _last_chunk(item)
            else:  # a call's pieces: the last chunk carries each call whole
                continue
            # LangChain reports each chunk to the run's callbacks (LangGraph's ``messages``).
            yield ChatGenerationChunk(message=chunk)

    def _call(self) -> ModelCall:
        return ModelCall(self.model, self.tool_specs, fallbacks=self.fallbacks)


def _request(messages: Sequence[BaseMessage]) -> tuple[list[AgentMessage], str]:
    """The conversation runyard's model layer sends, and the system messages as instructions."""
    instructions = "\n\n".join(m.text for m in messages if isinstance(m, SystemMessage))
    conversation = [
        converted
        for m in messages
        if not isinstance(m, SystemMessage) and (converted := from_langchain(m)) is not None
    ]
    return conversation, instructions


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
