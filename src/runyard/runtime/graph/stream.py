"""``GraphStream``: a LangGraph stream's parts → the chunks runyard's loop sends.

The one mapping from LangGraph's stream to runyard's run: ``messages`` parts give the model's
deltas (text, reasoning, tool-call pieces); ``updates`` parts give the messages each node made —
a model's answer (a ``message`` chunk, with its usage), a tool's result (``tool-result``) — which
join the run's message list in order; ``__interrupt__`` updates are the questions the run
suspends on. A message already in the list (the conversation the graph was given, a node that
returns the whole list) is not taken again. A node's message that no chat model streamed (the
node wrote it itself) gives its text and reasoning as one delta each; its other content blocks
(images, files, JSON, citations) go in its ``message`` chunk, a tool's in its ``tool-result``.

A runyard tool's own chunks (its call's start, its events) are written on the graph's stream
as ``custom`` parts (``GraphToolRun``), so they keep their place among the graph's parts and
come from the subgraph that made the call. Other ``custom`` parts (``get_stream_writer()`` in a
node or a LangChain tool) are ``CustomDataChunk``s: the protocol has no event for an
application's own data, so a text becomes a ``status`` line (what such writes mostly are:
"Searching…") and anything else a ``content`` event with a JSON block.

A subgraph is a sub-agent: the parts of namespace ``("node:<task>", …)`` come as
``SubAgentChunk``s of the child agent ``node:<task>`` (LangGraph's own namespace, unique in the
run and the same again when a resume carries the subgraph on), nested as subgraphs nest. It ends
(``SubAgentEndChunk``, its last answer's text as result) when its node's update reaches its
parent — or, when that node runs several at once (``Send``), when its own task ends (a
``tasks`` part names it). The answers it hands back in that update are its parent's too, so
the parent shows them again (their text as one delta, their blocks, not their tool calls): a
graph whose answer a subgraph writes still answers at the top, where the faces read it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from pydantic_core import to_jsonable_python

from runyard.messages import AgentMessage, ToolCallPart
from runyard.models import Usage
from runyard.runtime.chunks import (
    ChunkSink,
    CustomDataChunk,
    MessageChunk,
    ReasoningDeltaChunk,
    StreamChunk,
    SubAgentChunk,
    SubAgentEndChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolResultChunk,
)
from runyard.runtime.control import RunControl
from runyard.runtime.graph.chat_model import RUNYARD_USAGE
from runyard.runtime.graph.messages import from_langchain
from runyard.runtime.graph.questions import question_of
from runyard.runtime.graph.tools import ToolRunChunk
from runyard.runtime.message_list import AgentMessageList
from runyard.runtime.state import PendingToolCall

__all__ = ["GraphStream"]

Namespace = tuple[str, ...]
"""Where a part came from: ``()`` the graph itself, else the path of subgraph steps to it."""


class GraphStream:
    """Takes the parts of one segment's graph stream into ``messages`` and ``sink``."""

    def __init__(self, messages: AgentMessageList, sink: ChunkSink, control: RunControl) -> None:
        self._list = messages
        self._sink = sink
        self._control = control
        self._seen = {m.id for m in messages.all}
        self._streamed: set[str] = set()
        """Answers whose text came as deltas (a node's own message comes whole)."""
        self._shown_at: dict[str, Namespace] = {}
        """Where each message this stream took was shown: a subgraph's, until its parent's."""
        self._running: dict[Namespace, str] = {}
        """The subgraphs shown as running, each with its last answer's text so far."""
        self.usage = Usage()
        """What the model answers taken so far used."""
        self.questions: list[tuple[PendingToolCall, str]] = []
        """The calls the graph waits on, each with the interrupt its answer resumes."""

    async def take(self, namespace: Any, mode: str, data: Any) -> bool:
        """Take one part; True when it ended a super-step of the graph itself (its progress
        may be recorded)."""
        self._control.check()
        where: Namespace = tuple(namespace)
        if mode == "custom":
            await self._send(where, _custom(data))
            return False
        if mode == "tasks":
            await self._task(where, data)
            return False
        if mode == "messages":
            message, _ = data
            if isinstance(message, AIMessageChunk):
                await self._deltas(where, message)
            return False
        return await self._updates(where, data)

    async def _task(self, where: Namespace, data: dict[str, Any]) -> None:
        """A task started, was interrupted, or ended (a result, no interrupts): a subgraph it
        ran has ended only then."""
        ended = (*where, f"{data['name']}:{data['id']}")
        if "result" in data and not data.get("interrupts") and ended in self._running:
            await self._end(ended)

    async def _updates(self, where: Namespace, data: dict[str, Any]) -> bool:
        if "__interrupt__" in data:
            self.questions.extend(question_of(i) for i in data["__interrupt__"])
            return False
        for node, update in data.items():
            running = self._children(where, node)
            if len(running) == 1:  # several (sent in parallel) end with their tasks
                await self._end(running[0])
            for message in _messages(update):
                await self._took(where, message)
        return not where

    async def _send(self, where: Namespace, chunk: StreamChunk) -> None:
        """Send ``chunk`` as the subgraph at ``where`` sent it (the graph's own: ``()``)."""
        for depth in range(1, len(where) + 1):
            self._running.setdefault(where[:depth], "")
        for step in reversed(where):
            chunk = SubAgentChunk(step, _role(step), chunk)
        await self._sink.send(chunk)

    async def _deltas(self, where: Namespace, chunk: AIMessageChunk) -> None:
        if chunk.id is not None:
            self._streamed.add(chunk.id)
        for typed in chunk.content_blocks:
            block: dict[str, Any] = dict(typed)
            kind = block.get("type")
            if kind == "text" and block.get("text"):
                await self._send(where, TextDeltaChunk(block["text"]))
            elif kind == "reasoning" and block.get("reasoning"):
                await self._send(where, ReasoningDeltaChunk(block["reasoning"]))
        for piece in chunk.tool_call_chunks:
            await self._send(where, ToolCallDeltaChunk(piece["id"], piece["name"], piece["args"]))

    async def _took(self, where: Namespace, message: BaseMessage) -> None:
        if message.id is not None and message.id in self._seen:
            await self._handed_back(where, message)
            return
        converted = from_langchain(message)
        if converted is None:
            return
        self._seen.add(converted.id)
        self._shown_at[converted.id] = where
        (added,) = self._list.add_response([converted])
        assert isinstance(added, AgentMessage)
        if isinstance(message, ToolMessage):
            for result in added.tool_results:
                await self._send(
                    where,
                    ToolResultChunk(
                        result.tool_call_id, result.tool_name, result.result, result.is_error
                    ),
                )
            return
        if isinstance(message, AIMessage):
            self.usage += _usage(message)
            await self._answer(where, added, whole=message.id not in self._streamed)

    async def _answer(self, where: Namespace, answer: AgentMessage, *, whole: bool) -> None:
        """An answer at ``where``; ``whole`` when its text and reasoning are no deltas yet."""
        if whole and answer.reasoning:
            await self._send(where, ReasoningDeltaChunk(answer.reasoning))
        if whole and answer.text:
            await self._send(where, TextDeltaChunk(answer.text))
        await self._send(where, MessageChunk(answer))
        if where and answer.text:
            self._running[where] = answer.text

    async def _handed_back(self, where: Namespace, message: BaseMessage) -> None:
        """A subgraph's answer its parent at ``where`` took into its state: the parent's too."""
        shown = self._shown_at.get(message.id or "")
        if shown is None or len(shown) <= len(where) or shown[: len(where)] != where:
            return
        self._shown_at[message.id or ""] = where
        converted = from_langchain(message) if isinstance(message, AIMessage) else None
        if converted is None:
            return
        parts = [p for p in converted.parts if not isinstance(p, ToolCallPart)]
        if parts:
            await self._answer(where, converted.model_copy(update={"parts": parts}), whole=True)

    def _children(self, where: Namespace, node: str) -> list[Namespace]:
        """The subgraphs running right under the graph at ``where`` that ``node`` runs."""
        return [
            running
            for running in self._running
            if len(running) == len(where) + 1
            and running[: len(where)] == where
            and _role(running[-1]) == node
        ]

    async def _end(self, ended: Namespace) -> None:
        """The subgraph at ``ended`` has ended, and any still running inside it (the deepest
        first)."""
        inside = [running for running in self._running if running[: len(ended)] == ended]
        for running in sorted(inside, key=len, reverse=True):
            result = self._running.pop(running)
            step = running[-1]
            await self._send(running[:-1], SubAgentEndChunk(step, _role(step), result))


def _custom(data: Any) -> StreamChunk:
    """A ``custom`` part's chunk: a runyard tool call's own, or data the graph wrote."""
    if isinstance(data, ToolRunChunk):
        return data.chunk
    return CustomDataChunk(to_jsonable_python(data, fallback=str))


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


def _role(step: str) -> str:
    """The node a namespace step (``node:<task>``) ran."""
    return step.partition(":")[0]


def _usage(message: AIMessage) -> Usage:
    """What the answer used: runyard's own count (its cost included) for runyard's model,
    else LangChain's ``usage_metadata``; a message no model wrote (no usage, no model name) is
    no request."""
    counted = message.response_metadata.get(RUNYARD_USAGE)
    if isinstance(counted, dict):
        return Usage(**{**counted, "models": tuple(counted.get("models", ()))})
    metadata = message.usage_metadata
    model = message.response_metadata.get("model_name")
    if metadata is None:
        return Usage(requests=1, models=(model,)) if isinstance(model, str) else Usage()
    return Usage(
        input_tokens=metadata.get("input_tokens", 0),
        output_tokens=metadata.get("output_tokens", 0),
        requests=1,
        models=(model,) if isinstance(model, str) else (),
    )
