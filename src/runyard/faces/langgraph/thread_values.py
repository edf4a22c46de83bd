"""``ThreadValues``: a thread's LangGraph state, ``{"messages": [...]}``, folded from its wire
events — what ``get_state`` answers and what a run's stream reports step by step.

The messages are LangChain's message dicts (``HumanMessage``, ``AIMessage``, ``ToolMessage`` as
``messages_to_dict`` writes them, ``type`` ``human``/``ai``/``tool``): the run's user message,
then per model turn one ``ai`` message (its text, its reasoning in
``additional_kwargs.reasoning_content``, its ``tool_calls``), and one ``tool`` message per tool
result or error. Only the orchestrator's events are messages; a sub-agent's are not (they are
``custom`` stream parts).

Ids are made from the log, so a state read and a stream say the same ids: the user message's
own id, ``ai-<runId>-<n>`` for the run's n-th model turn, ``tool-<toolCallId>`` for a result.

A finished run can be folded from its snapshot's transcript instead (``replay``): the same
messages, the same ids, without reading or parsing its events.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from runyard.protocol import (
    ReasoningDeltaEvent,
    RunFinishEvent,
    RunStartEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolErrorEvent,
    ToolResultEvent,
    WireEvent,
)
from runyard.service import ORCHESTRATOR_ID, TranscriptEntry

__all__ = ["Delta", "Message", "Step", "ThreadValues", "ai_message", "human_message"]

Message = dict[str, Any]
"""One LangChain message dict."""


@dataclass(frozen=True, slots=True)
class Step:
    """Messages a graph node finished: ``__start__`` (the input), ``model`` or ``tools`` — the
    node names of LangChain's ``create_agent``."""

    node: str
    messages: list[Message]


@dataclass(frozen=True, slots=True)
class Delta:
    """A piece of the open ``ai`` message's text (``reasoning``: of its reasoning)."""

    message_id: str
    text: str
    reasoning: bool = False


@dataclass(slots=True)
class _Turn:
    """The model turn being folded, and whether a stream has told its end already."""

    message: Message
    told: bool = False


def human_message(message_id: str, content: str | list[dict[str, Any]]) -> Message:
    """A ``HumanMessage`` dict."""
    return {
        "type": "human",
        "content": content,
        "id": message_id,
        "name": None,
        "additional_kwargs": {},
        "response_metadata": {},
    }


def ai_message(message_id: str, text: str = "") -> Message:
    """An ``AIMessage`` dict (``AIMessageChunk`` for a piece of one, ``type`` changed)."""
    return {
        "type": "ai",
        "content": text,
        "id": message_id,
        "name": None,
        "tool_calls": [],
        "invalid_tool_calls": [],
        "usage_metadata": None,
        "additional_kwargs": {},
        "response_metadata": {},
    }


class ThreadValues:
    """The messages of a thread's events, folded in log order (``apply``); ``users`` gives the
    user message of each run by its id (``run-start``'s ``messageId``)."""

    def __init__(self, users: Mapping[str, Message]) -> None:
        self.users = dict(users)
        self.messages: list[Message] = []
        self._turn: _Turn | None = None
        self._tools: dict[str, str] = {}
        self._turns: dict[str, int] = {}
        self.structured: dict[str, Any] | None = None
        self.failed = False
        """The last run ended in an error (LangGraph's thread status ``error``)."""

    def values(self) -> dict[str, Any]:
        """The state: ``{"messages": [...]}``, and the last run's ``structured_response`` (an
        agent with an ``output_schema``, as ``create_agent``'s ``response_format`` keeps it)."""
        state: dict[str, Any] = {"messages": list(self.messages)}
        if self.structured is not None:
            state["structured_response"] = self.structured
        return state

    def values_upto(self, message: Message) -> dict[str, Any]:
        """The state as it was once ``message`` (one of the thread's) was added: what a step
        that ended with it shows, when one event ended two steps."""
        after = next(i for i, m in enumerate(reversed(self.messages)) if m is message)
        return {**self.values(), "messages": self.messages[: len(self.messages) - after]}

    def open_message(self) -> Message | None:
        """The ``ai`` message of the model turn being folded."""
        return None if self._turn is None else self._turn.message

    def apply(self, event: WireEvent) -> list[Step | Delta]:
        """Fold one event; what it finished or added, for a stream to tell."""
        if event.agent_id != ORCHESTRATOR_ID and not isinstance(
            event, RunStartEvent | RunFinishEvent
        ):
            return []
        match event:
            case RunStartEvent():
                return self._start(event.payload.message_id)
            case TextDeltaEvent() | ReasoningDeltaEvent():
                reasoning = isinstance(event, ReasoningDeltaEvent)
                return self._delta(event.run_id, event.payload.text, reasoning=reasoning)
            case ToolCallEvent():
                call = event.payload
                self._call(event.run_id, call.tool_call_id, call.tool_name, call.args)
                return []
            case ToolResultEvent():
                return [
                    *self.close(),
                    self._result(event.payload.tool_call_id, event.payload.result),
                ]
            case ToolErrorEvent():
                return [*self.close(), self._error(event.payload.tool_call_id, event.payload.error)]
            case RunFinishEvent():
                return self._finish(event.payload.status, event.payload.output)
            case _:
                return []

    def replay(self, run_id: str, entry: TranscriptEntry) -> None:
        """Fold one entry of a finished run's transcript: what folding the events it stands
        for does (a joined delta is one delta)."""
        if entry["kind"] == "start":
            self._start(entry["messageId"])
        elif entry["kind"] == "text" or entry["kind"] == "reasoning":
            self._delta(run_id, entry["text"], reasoning=entry["kind"] == "reasoning")
        elif entry["kind"] == "call":
            self._call(run_id, entry["toolCallId"], entry["toolName"], entry["args"])
        elif entry["kind"] == "result":
            self.close()
            self._result(entry["toolCallId"], entry["result"])
        elif entry["kind"] == "error":
            self.close()
            self._error(entry["toolCallId"], entry["error"])
        else:
            self._finish(entry["status"], entry["output"])

    def _start(self, message_id: str) -> list[Step | Delta]:
        user = self.users.get(message_id)
        finished = self.close()
        if user is None:
            return finished
        self.messages.append(user)
        return [*finished, Step("__start__", [user])]

    def _finish(self, status: str, output: dict[str, Any] | None) -> list[Step | Delta]:
        self.structured = output
        self.failed = status == "error"
        return self.close()

    def close(self) -> list[Step | Delta]:
        """End the open model turn (a tool ran, the run ended or waits); its step, once."""
        turn, self._turn = self._turn, None
        if turn is None or turn.told:
            return []
        turn.told = True
        return [Step("model", [turn.message])]

    def settle(self) -> None:
        """Count what was folded so far as told (a stream starting mid-thread tells only what
        comes next)."""
        if self._turn is not None:
            self._turn.told = True

    def _open(self, run_id: str) -> Message:
        if self._turn is None:
            turn = self._turns[run_id] = self._turns.get(run_id, 0) + 1
            self._turn = _Turn(ai_message(f"ai-{run_id}-{turn}"))
            self.messages.append(self._turn.message)
        return self._turn.message

    def _delta(self, run_id: str, text: str, *, reasoning: bool) -> list[Step | Delta]:
        if not text:
            return []
        finished: list[Step | Delta] = []
        if self._turn is not None and self._turn.message["tool_calls"]:
            finished = self.close()  # a turn's text comes before its calls: this is the next
        message = self._open(run_id)
        if reasoning:
            kwargs = message["additional_kwargs"]
            kwargs["reasoning_content"] = kwargs.get("reasoning_content", "") + text
        else:
            message["content"] += text
        return [*finished, Delta(message["id"], text, reasoning)]

    def _call(self, run_id: str, call_id: str, tool_name: str, args: dict[str, Any]) -> None:
        call = {"name": tool_name, "args": args, "id": call_id, "type": "tool_call"}
        self._open(run_id)["tool_calls"].append(call)
        self._tools[call_id] = tool_name

    def _result(self, call_id: str, result: Any) -> Step:
        content = result if isinstance(result, str) else json.dumps(result)
        return self._tool_message(call_id, content, "success")

    def _error(self, call_id: str, error: str) -> Step:
        return self._tool_message(call_id, error, "error")

    def _tool_message(self, call_id: str, content: str, status: str) -> Step:
        message: Message = {
            "type": "tool",
            "content": content,
            "id": f"tool-{call_id}",
            "name": self._tools.get(call_id),
            "tool_call_id": call_id,
            "status": status,
            "artifact": None,
            "additional_kwargs": {},
            "response_metadata": {},
        }
        self.messages.append(message)
        return Step("tools", [message])
