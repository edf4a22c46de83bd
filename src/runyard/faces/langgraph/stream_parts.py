"""``StreamParts``: one runyard run as LangGraph Server's stream — the whole mapping of the
LangGraph face. Each part is an SSE event named as LangGraph names it, ``metadata`` first and
``end`` last; the thread's messages are folded by ``ThreadValues``.

| runyard | ``values`` | ``updates`` | ``messages-tuple`` (event ``messages``) | ``messages`` | ``events`` |
|---|---|---|---|---|---|
| ``run-start`` (the user message) | the state | | | | ``on_chain_start`` |
| orchestrator ``text-delta`` / ``reasoning-delta`` | | | ``[AIMessageChunk, metadata]`` | ``messages/metadata`` once, ``messages/partial`` | ``on_chat_model_stream`` |
| a model turn ends (a tool ran, the run ended or waits) | the state | ``{"model": {"messages": [ai]}}`` | its ``tool_calls`` as a last chunk | ``messages/complete`` | ``on_chat_model_end`` |
| ``tool-call`` | | | | | ``on_tool_start`` |
| ``tool-result`` / ``tool-error`` | the state | ``{"tools": {"messages": [tool]}}`` | ``[ToolMessage, metadata]`` | ``messages/complete`` | ``on_tool_end`` |
| waits for approval | ``{"__interrupt__": [...]}`` | ``{"__interrupt__": [...]}`` | | | |
| ``run-finish`` completed | | | | | ``on_chain_end`` |

``custom`` carries runyard's other events as ``/v1`` sends them (``status``, ``tasks-update``,
``agent-spawned``, ``agent-completed``, ``content``, ``error``, ``thread-title-updated``,
``run-resumed``). A run that fails, or closes unfinished, ends with ``error``
``{"error", "message"}`` before ``end``. When the server goes away mid-run the stream ends
without ``end``: the SDK reconnects to the run's stream (``Location``) with the last ``id``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from runyard.faces.face_events import taken_over_message
from runyard.faces.langgraph.thread_state import interrupt
from runyard.faces.langgraph.thread_values import Delta, Message, Step, ThreadValues, ai_message
from runyard.protocol import (
    ConfirmationRequestPayload,
    RunFinishEvent,
    RunStartEvent,
    ToolCallEvent,
    WireEvent,
)
from runyard.service import ORCHESTRATOR_ID, RunPause

__all__ = ["Part", "StreamParts"]

_CUSTOM = frozenset(
    {
        "status",
        "tasks-update",
        "agent-spawned",
        "agent-completed",
        "content",
        "error",
        "thread-title-updated",
        "run-resumed",
    }
)
"""runyard's events that are no message, sent on the ``custom`` mode."""


@dataclass(frozen=True, slots=True)
class Part:
    """One SSE event of the stream."""

    event: str
    data: Any

    def frame(self, event_id: int | None) -> bytes:
        """The SSE frame; ``event_id`` is the log id a reconnect resumes after."""
        head = f"event: {self.event}\n"
        data = json.dumps(self.data, separators=(",", ":"))
        tail = f"id: {event_id}\n" if event_id is not None else ""
        return f"{head}data: {data}\n{tail}\n".encode()


class StreamParts:
    """Maps one run's events onto the ``modes`` asked for. ``values`` is the thread's state
    folded up to where the stream starts (``settle``d)."""

    def __init__(
        self,
        run_id: str,
        thread_id: str,
        assistant_id: str,
        modes: Sequence[str],
        values: ThreadValues,
        *,
        resumed: bool = False,
    ) -> None:
        self.run_id = run_id
        self.resumed = resumed
        """The stream goes on after a ``Last-Event-ID``: its client had the ``metadata``."""
        self.thread_id = thread_id
        self.assistant_id = assistant_id
        self.modes = frozenset(modes)
        self.values = values
        self._told: set[str] = set()
        self.gone = False
        """The server went away before the run ended (the stream ends without ``end``)."""

    def started(self) -> list[Part]:
        return [] if self.resumed else [Part("metadata", {"run_id": self.run_id, "attempt": 1})]

    def event(self, event: WireEvent) -> list[Part]:
        changes = self.values.apply(event)
        parts = [part for change in changes for part in self._change(change)]
        if isinstance(event, RunFinishEvent):  # the chain ends after its last step
            return [*parts, *self._lifecycle(event), *self._custom(event)]
        return [*self._lifecycle(event), *parts, *self._custom(event)]

    def paused(self, pause: RunPause, waiting: list[ConfirmationRequestPayload]) -> list[Part]:
        parts = [part for change in self.values.close() for part in self._change(change)]
        if pause.status == "suspended" and waiting:
            interrupts = {"__interrupt__": [interrupt(q) for q in waiting]}
            parts += [Part(m, interrupts) for m in ("values", "updates") if m in self.modes]
            return parts
        if pause.status == "cancelled":
            return parts
        return [*parts, _error("run_failed", pause.reason or "the run ended unfinished")]

    def stopped(self, last_event_id: int) -> list[Part]:
        self.gone = True  # no `end`: the SDK reconnects after the last id it got
        return []

    def taken_over(self, after_event_id: int) -> list[Part]:
        return [_error("run_taken_over", taken_over_message(self.thread_id, after_event_id))]

    def ended(self) -> list[Part]:
        return [] if self.gone else [Part("end", None)]

    def _meta(self, node: str) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "thread_id": self.thread_id,
            "assistant_id": self.assistant_id,
            "graph_id": self.assistant_id,
            "langgraph_node": node,
            "langgraph_checkpoint_ns": "",
        }

    def _change(self, change: Step | Delta) -> list[Part]:
        if isinstance(change, Delta):
            return self._delta(change)
        parts: list[Part] = []
        if "updates" in self.modes and change.node != "__start__":  # LangGraph sends none
            parts.append(Part("updates", {change.node: {"messages": change.messages}}))
        if change.node != "__start__":
            for message in change.messages:
                parts += self._complete(change.node, message)
        if "values" in self.modes:
            parts.append(Part("values", self.values.values_upto(change.messages[-1])))
        return parts

    def _delta(self, delta: Delta) -> list[Part]:
        chunk = ai_message(delta.message_id, "" if delta.reasoning else delta.text)
        chunk["type"] = "AIMessageChunk"
        if delta.reasoning:
            chunk["additional_kwargs"] = {"reasoning_content": delta.text}
        parts: list[Part] = []
        if "messages-tuple" in self.modes:
            parts.append(Part("messages", [chunk, self._meta("model")]))
        if "messages" in self.modes:
            parts += self._opened(delta.message_id, "model")
            whole = self.values.open_message()
            parts.append(Part("messages/partial", [whole]))
        if "events" in self.modes:
            parts.append(self._stream_event("on_chat_model_stream", "model", {"chunk": chunk}))
        return parts

    def _complete(self, node: str, message: Message) -> list[Part]:
        """What a finished ``ai`` or ``tool`` message adds in the message and event modes."""
        parts: list[Part] = []
        if "messages-tuple" in self.modes and (node == "tools" or message["tool_calls"]):
            told = message if node == "tools" else _calls_chunk(message)
            parts.append(Part("messages", [told, self._meta(node)]))
        if "messages" in self.modes:
            parts += self._opened(message["id"], node)
            parts.append(Part("messages/complete", [message]))
        if "events" in self.modes:
            kind = "on_chat_model_end" if node == "model" else "on_tool_end"
            name = "model" if node == "model" else str(message.get("name"))
            parts.append(self._stream_event(kind, name, {"output": message}))
        return parts

    def _opened(self, message_id: str, node: str) -> list[Part]:
        """``messages/metadata`` before a message's first part (legacy ``messages`` mode)."""
        if message_id in self._told:
            return []
        self._told.add(message_id)
        return [Part("messages/metadata", {message_id: {"metadata": self._meta(node)}})]

    def _lifecycle(self, event: WireEvent) -> list[Part]:
        """``events`` mode's chain and tool starts and the chain's end."""
        if "events" not in self.modes or event.agent_id != ORCHESTRATOR_ID:
            return []
        match event:
            case RunStartEvent():
                return [self._stream_event("on_chain_start", self.assistant_id, {"input": {}})]
            case ToolCallEvent():
                data = {"input": event.payload.args}
                return [self._stream_event("on_tool_start", event.payload.tool_name, data)]
            case RunFinishEvent() if event.payload.status == "completed":
                data = {"output": self.values.values()}
                return [self._stream_event("on_chain_end", self.assistant_id, data)]
            case _:
                return []

    def _stream_event(self, kind: str, name: str, data: dict[str, Any]) -> Part:
        """One ``astream_events`` (v2) event."""
        value = {
            "event": kind,
            "name": name,
            "run_id": self.run_id,
            "tags": [],
            "metadata": self._meta("model" if kind.startswith("on_chat") else name),
            "data": data,
            "parent_ids": [],
        }
        return Part("events", value)

    def _custom(self, event: WireEvent) -> list[Part]:
        finish = _finish_error(event)
        if "custom" not in self.modes or event.type not in _CUSTOM:
            return finish
        return [Part("custom", event.model_dump(mode="json")), *finish]


def _finish_error(event: WireEvent) -> list[Part]:
    """``error`` for a run that ended failed."""
    if isinstance(event, RunFinishEvent) and event.payload.status == "error":
        return [_error("run_failed", event.payload.reason or "the run failed")]
    return []


def _calls_chunk(message: Message) -> Message:
    """The last chunk of a model turn that called tools: its ``tool_calls``, LangChain's
    ``tool_call_chunks`` beside them."""
    chunk = ai_message(message["id"])
    chunk["type"] = "AIMessageChunk"
    chunk["tool_calls"] = message["tool_calls"]
    chunk["tool_call_chunks"] = [
        {
            "name": call["name"],
            "args": json.dumps(call["args"]),
            "id": call["id"],
            "index": i,
            "type": "tool_call_chunk",
        }
        for i, call in enumerate(message["tool_calls"])
    ]
    return chunk


def _error(code: str, message: str) -> Part:
    return Part("error", {"error": code, "message": message})
