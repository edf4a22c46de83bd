"""A run's transcript: the conversation its events say — the user message it answered, the
orchestrator's text and reasoning, its tool calls and their outcomes, how it finished — kept in
the run's snapshot so a reader that shows a thread as messages (the LangGraph face's
``ThreadValues``) replays finished runs from their snapshots instead of folding their events.

The entries are the run's events that make messages, in log order and compacted: consecutive text
(or reasoning) deltas joined into one, empty deltas left out, the events a takeover's
``run-resumed`` superseded dropped (as ``AgentTreeBuilder`` drops them). A sub-agent's events
make no messages and are left out; ``run-start`` and ``run-finish`` count whoever sent them. Each
entry is plain JSON, so a reader replays a thousand runs without parsing an event.
"""

from __future__ import annotations

import itertools
from typing import Any, Literal, TypedDict

from runyard.protocol import (
    ORCHESTRATOR_ID,
    ReasoningDeltaEvent,
    RunFinishEvent,
    RunResumedEvent,
    RunStartEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolErrorEvent,
    ToolResultEvent,
    WireEvent,
)

__all__ = [
    "CallEntry",
    "DeltaEntry",
    "ErrorEntry",
    "FinishEntry",
    "ResultEntry",
    "StartEntry",
    "TranscriptEntry",
    "TranscriptFold",
]


class StartEntry(TypedDict):
    """``run-start``: the run answers the user message ``messageId``."""

    kind: Literal["start"]
    messageId: str


class DeltaEntry(TypedDict):
    """The orchestrator's text (or reasoning) between two other entries, joined."""

    kind: Literal["text", "reasoning"]
    text: str


class CallEntry(TypedDict):
    """``tool-call``."""

    kind: Literal["call"]
    toolCallId: str
    toolName: str
    args: dict[str, Any]


class ResultEntry(TypedDict):
    """``tool-result``."""

    kind: Literal["result"]
    toolCallId: str
    result: Any


class ErrorEntry(TypedDict):
    """``tool-error``."""

    kind: Literal["error"]
    toolCallId: str
    error: str


class FinishEntry(TypedDict):
    """``run-finish``, with its log id (a LangGraph checkpoint is one)."""

    kind: Literal["finish"]
    eventId: int
    status: str
    output: dict[str, Any] | None


TranscriptEntry = StartEntry | DeltaEntry | CallEntry | ResultEntry | ErrorEntry | FinishEntry


class TranscriptFold:
    """One run's events folded into its transcript, as they come (``apply``)."""

    def __init__(self) -> None:
        self._entries: list[tuple[int, TranscriptEntry]] = []

    def apply(self, event: WireEvent, event_id: int) -> None:
        """Fold one event of the run, with its log id."""
        if isinstance(event, RunResumedEvent):
            after = event.payload.after_event_id
            self._entries = [(i, entry) for i, entry in self._entries if i <= after]
        elif (entry := _entry(event, event_id)) is not None:
            self._entries.append((event_id, entry))

    def entries(self) -> list[TranscriptEntry]:
        """The transcript so far, consecutive deltas of one kind joined."""
        joined: list[TranscriptEntry] = []
        for kind, stretch in itertools.groupby((e for _, e in self._entries), key=_delta_kind):
            if kind is None:
                joined.extend(stretch)
            else:
                text = "".join(e["text"] for e in stretch if e["kind"] == kind)
                joined.append({"kind": kind, "text": text})
        return joined


def _delta_kind(entry: TranscriptEntry) -> Literal["text", "reasoning"] | None:
    if entry["kind"] == "text" or entry["kind"] == "reasoning":
        return entry["kind"]
    return None


def _entry(event: WireEvent, event_id: int) -> TranscriptEntry | None:
    match event:
        case RunStartEvent():
            return {"kind": "start", "messageId": event.payload.message_id}
        case RunFinishEvent():
            payload = event.payload
            status, output = payload.status, payload.output
            return {"kind": "finish", "eventId": event_id, "status": status, "output": output}
    if event.agent_id != ORCHESTRATOR_ID:
        return None
    match event:
        case TextDeltaEvent() | ReasoningDeltaEvent() if event.payload.text:
            kind: Literal["text", "reasoning"] = (
                "text" if isinstance(event, TextDeltaEvent) else "reasoning"
            )
            return {"kind": kind, "text": event.payload.text}
        case ToolCallEvent():
            call = event.payload
            return {
                "kind": "call",
                "toolCallId": call.tool_call_id,
                "toolName": call.tool_name,
                "args": call.args,
            }
        case ToolResultEvent():
            return {
                "kind": "result",
                "toolCallId": event.payload.tool_call_id,
                "result": event.payload.result,
            }
        case ToolErrorEvent():
            return {
                "kind": "error",
                "toolCallId": event.payload.tool_call_id,
                "error": event.payload.error,
            }
    return None
