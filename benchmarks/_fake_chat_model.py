"""The LangChain chat model that plays ``_fake_script``'s two turns, for LangGraph.

It needs only ``langchain-core``, so a LangGraph server can load it from an environment without
pydantic-ai (benchmarks/langgraph_peer). With ``holds=True`` (the service race), a run whose
prompt is ``hold <token>`` first waits in ``_held_runs.hold`` until the benchmark releases it.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from _fake_script import ANSWER, ANSWER_DELTAS, ARGS, TOOL, call_id
from _held_runs import held_token, hold
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

__all__ = ["AddCallingChatModel"]


def _tool_message_last(messages: Sequence[BaseMessage]) -> bool:
    return isinstance(messages[-1], ToolMessage)


async def _hold_if_asked(messages: Sequence[BaseMessage]) -> None:
    last = messages[-1]
    if isinstance(last, HumanMessage) and (token := held_token(last.text)) is not None:
        await hold(token)


def _reply(messages: Sequence[BaseMessage]) -> AIMessage:
    if _tool_message_last(messages):
        return AIMessage(content=ANSWER)
    call = {"name": TOOL, "args": dict(ARGS), "id": call_id(), "type": "tool_call"}
    return AIMessage(content="", tool_calls=[call])


def _chunks(messages: Sequence[BaseMessage]) -> Iterator[AIMessageChunk]:
    if _tool_message_last(messages):
        for delta in ANSWER_DELTAS:
            yield AIMessageChunk(content=delta)
        return
    args = json.dumps(ARGS)
    call = tool_call_chunk(name=TOOL, args=args, id=call_id(), index=0)
    yield AIMessageChunk(content="", tool_call_chunks=[call])


class AddCallingChatModel(BaseChatModel):
    """A chat model that calls ``add`` first and answers once the tool has returned.

    ``bind_tools`` returns the model itself: it already knows its one tool.
    """

    holds: bool = False

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
        if self.holds:
            await _hold_if_asked(messages)
        return ChatResult(generations=[ChatGeneration(message=_reply(messages))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        if self.holds:
            await _hold_if_asked(messages)
        # langchain-core reports each chunk to the callbacks (what stream_mode="messages" reads).
        for message in _chunks(messages):
            yield ChatGenerationChunk(message=message)
