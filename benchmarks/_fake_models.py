"""Zero-latency models that all play the same two turns: call ``add(1, 2)``, then answer.

runyard and pydantic-ai share one pydantic-ai ``FunctionModel``; LangGraph gets a LangChain chat
model that does the same. Streamed, each answers with the same word deltas and sends the tool
call as one delta, so every system gets exactly the same work from its model.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic_ai import messages as pai
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.usage import RequestUsage

__all__ = ["ANSWER", "ARGS", "TOOL", "AddCallingChatModel", "add_calling_function_model"]

TOOL = "add"
ARGS: dict[str, Any] = {"a": 1, "b": 2}
ANSWER = "The sum is 3."
_ANSWER_DELTAS = ("The ", "sum ", "is ", "3.")
_ids = itertools.count()


def _call_id() -> str:
    return f"call_{next(_ids)}"


# -- pydantic-ai (runyard and pydantic-ai's Agent) ------------------------------------------------


def _tool_returned(messages: list[pai.ModelMessage]) -> bool:
    last = messages[-1]
    return isinstance(last, pai.ModelRequest) and any(
        isinstance(part, pai.ToolReturnPart) for part in last.parts
    )


# Fixed usage, as the LangChain fake reports: FunctionModel would otherwise estimate tokens on
# every request (about 90 µs), work no real provider adapter does.
_USAGE = RequestUsage(input_tokens=20, output_tokens=5)


async def _respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
    if _tool_returned(messages):
        return pai.ModelResponse(parts=[pai.TextPart(ANSWER)], usage=_USAGE)
    return pai.ModelResponse(parts=[pai.ToolCallPart(TOOL, dict(ARGS), _call_id())], usage=_USAGE)


async def _stream(
    messages: list[pai.ModelMessage], info: AgentInfo
) -> AsyncIterator[str | dict[int, DeltaToolCall]]:
    if _tool_returned(messages):
        for delta in _ANSWER_DELTAS:
            yield delta
        return
    yield {0: DeltaToolCall(TOOL, json.dumps(ARGS), tool_call_id=_call_id())}


def add_calling_function_model() -> FunctionModel:
    """A ``FunctionModel`` that calls ``add`` first and answers once the tool has returned."""
    return FunctionModel(_respond, stream_function=_stream, model_name="add-caller")


# -- LangChain (LangGraph's agent) ----------------------------------------------------------------


def _tool_message_last(messages: Sequence[BaseMessage]) -> bool:
    return isinstance(messages[-1], ToolMessage)


def _reply(messages: Sequence[BaseMessage]) -> AIMessage:
    if _tool_message_last(messages):
        return AIMessage(content=ANSWER)
    call = {"name": TOOL, "args": dict(ARGS), "id": _call_id(), "type": "tool_call"}
    return AIMessage(content="", tool_calls=[call])


def _chunks(messages: Sequence[BaseMessage]) -> Iterator[AIMessageChunk]:
    if _tool_message_last(messages):
        for delta in _ANSWER_DELTAS:
            yield AIMessageChunk(content=delta)
        return
    args = json.dumps(ARGS)
    call = tool_call_chunk(name=TOOL, args=args, id=_call_id(), index=0)
    yield AIMessageChunk(content="", tool_call_chunks=[call])


class AddCallingChatModel(BaseChatModel):
    """A chat model that calls ``add`` first and answers once the tool has returned.

    ``bind_tools`` returns the model itself: it already knows its one tool.
    """

    @property
    def _llm_type(self) -> str:
        return "add-caller"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> AddCallingChatModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=_reply(messages))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=_reply(messages))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        # langchain-core reports each chunk to the callbacks (what stream_mode="messages" reads).
        for message in _chunks(messages):
            yield ChatGenerationChunk(message=message)
