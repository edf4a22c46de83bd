"""``GraphStream``: a LangGraph stream's parts → the chunks runyard's loop sends.

The one mapping from LangGraph's stream to runyard's run: ``messages`` parts give the model's
deltas (text, reasoning, tool-call pieces); ``updates`` parts give the messages each node made —
a model's answer (a ``message`` chunk, with its usage), a tool's result (``tool-result``) — which
join the run's message list in order; ``__interrupt__`` updates are the questions the run
suspends on. A message already in the list (the conversation the graph was given, a node that
returns the whole list) is not taken again.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage

from runyard.messages import AgentMessage
from runyard.models import Usage
from runyard.runtime.chunks import (
    ChunkSink,
    MessageChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolResultChunk,
)
from runyard.runtime.control import RunControl
from runyard.runtime.graph.chat_model import RUNYARD_USAGE
from runyard.runtime.graph.messages import from_langchain
from runyard.runtime.graph.questions import question_of
from runyard.runtime.message_list import AgentMessageList
from runyard.runtime.state import PendingToolCall

__all__ = ["GraphStream"]


class GraphStream:
    """Takes the parts of one segment's graph stream into ``messages`` and ``sink``."""

    def __init__(self, messages: AgentMessageList, sink: ChunkSink, control: RunControl) -> None:
        self._list = messages
        self._sink = sink
        self._control = control
        self._seen = {m.id for m in messages.all}
        self._streamed: set[str] = set()
        """Answers whose text came as deltas (a node's own message comes whole)."""
        self.usage = Usage()
        """What the model answers taken so far used."""
        self.questions: list[tuple[PendingToolCall, str]] = []
        """The calls the graph waits on, each with the interrupt its answer resumes."""

    async def take(self, namespace: Any, mode: str, data: Any) -> bool:
        """Take one part; True when it ended a super-step of the graph itself (its progress
        may be recorded)."""
        self._control.check()
        if mode == "messages":
            message, _ = data
            if isinstance(message, AIMessageChunk):
                await self._deltas(message)
            return False
        if "__interrupt__" in data:
            self.questions.extend(question_of(i) for i in data["__interrupt__"])
            return False
        for update in data.values():
            for message in _messages(update):
                await self._took(message)
        return not namespace

    async def _deltas(self, chunk: AIMessageChunk) -> None:
        if chunk.id is not None:
            self._streamed.add(chunk.id)
        for typed in chunk.content_blocks:
            block: dict[str, Any] = dict(typed)
            kind = block.get("type")
            if kind == "text" and block.get("text"):
                await self._sink.send(TextDeltaChunk(block["text"]))
            elif kind == "reasoning" and block.get("reasoning"):
                await self._sink.send(ReasoningDeltaChunk(block["reasoning"]))
        for piece in chunk.tool_call_chunks:
            await self._sink.send(ToolCallDeltaChunk(piece["id"], piece["name"], piece["args"]))

    async def _took(self, message: BaseMessage) -> None:
        if message.id is not None and message.id in self._seen:
            return
        converted = from_langchain(message)
        if converted is None:
            return
        self._seen.add(converted.id)
        (added,) = self._list.add_response([converted])
        assert isinstance(added, AgentMessage)
        if isinstance(message, ToolMessage):
            for result in added.tool_results:
                await self._sink.send(
                    ToolResultChunk(
                        result.tool_call_id, result.tool_name, result.result, result.is_error
                    )
                )
            return
        if isinstance(message, AIMessage):
            self.usage += _usage(message)
            if message.id not in self._streamed:  # its text and reasoning are no deltas yet
                if added.reasoning:
                    await self._sink.send(ReasoningDeltaChunk(added.reasoning))
                if added.text:
                    await self._sink.send(TextDeltaChunk(added.text))
        await self._sink.send(MessageChunk(added))


def _messages(update: Any) -> Iterable[BaseMessage]:
    """The messages a node's update holds (a state without a ``messages`` key holds none)."""
    if not isinstance(update, dict):
        return ()
    found = update.get("messages")
    if isinstance(found, BaseMessage):
        return (found,)
    if isinstance(found, list | tuple):
        return [m for m in found if isinstance(m, BaseMessage)]
    return ()


def _usage(message: AIMessage) -> Usage:
    counted = message.response_metadata.get(RUNYARD_USAGE)
    if isinstance(counted, dict):
        return Usage(**{**counted, "models": tuple(counted.get("models", ()))})
    metadata = message.usage_metadata
    if metadata is None:
        return Usage(requests=1)
    model = message.response_metadata.get("model_name")
    return Usage(
        input_tokens=metadata.get("input_tokens", 0),
        output_tokens=metadata.get("output_tokens", 0),
        requests=1,
        models=(model,) if isinstance(model, str) else (),
    )
