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
from langgraph.types import Interrupt
from pydantic_core import to_jsonable_python

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
from runyard.runtime.graph.tools import QUESTION_MARK
from runyard.runtime.message_list import AgentMessageList
from runyard.runtime.state import PendingToolCall

__all__ = ["INTERRUPT_TOOL", "GraphStream"]

INTERRUPT_TOOL = "interrupt"
"""The tool name of a question a graph asks with ``interrupt()`` outside any runyard tool."""


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
            self.questions.extend(_question(i) for i in data["__interrupt__"])
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


def _question(interrupt: Interrupt) -> tuple[PendingToolCall, str]:
    value = interrupt.value
    if isinstance(value, dict) and value.get(QUESTION_MARK):
        entry = PendingToolCall(
            tool_call_id=value["tool_call_id"],
            tool_name=value["tool_name"],
            args=value["args"],
            suspended=True,
            payload=value["payload"],
            resume_schema=value["resume_schema"],
        )
    else:  # the graph's own question: any answer is the value ``interrupt()`` returns
        shown = to_jsonable_python(value, fallback=str)
        entry = PendingToolCall(
            tool_call_id=interrupt.id,
            tool_name=INTERRUPT_TOOL,
            args=shown if isinstance(shown, dict) else {"value": shown},
            suspended=True,
            payload=_question_payload(shown),
        )
    return entry, interrupt.id


def _question_payload(value: Any) -> dict[str, Any]:
    """The confirmation a graph's ``interrupt(value)`` asks: a free-text answer unless the value
    says otherwise (it may carry the protocol's fields: ``message``, ``inputType``, …); a text,
    or a value's ``question``, is its message."""
    if isinstance(value, str):
        return {"message": value, "inputType": "text"}
    if not isinstance(value, dict):
        return {"inputType": "text"}
    payload = {"inputType": "text", **value}
    question = value.get("question")
    if "message" not in value and isinstance(question, str):
        payload["message"] = question
    return payload
