"""``AguiEvents``: one runyard run as AG-UI events — the whole mapping of the AG-UI face.

| runyard | AG-UI |
|---|---|
| (the stream opens) | ``RUN_STARTED`` (the input's thread and run ids) |
| ``text-delta`` | ``TEXT_MESSAGE_START`` once, ``TEXT_MESSAGE_CONTENT``, ``TEXT_MESSAGE_END`` when anything else comes |
| ``reasoning-delta`` | ``REASONING_START``, ``REASONING_MESSAGE_START/CONTENT/END``, ``REASONING_END`` |
| ``tool-call`` | ``TOOL_CALL_START``, ``TOOL_CALL_ARGS`` (the arguments' JSON), ``TOOL_CALL_END`` |
| ``tool-result`` / ``tool-error`` | ``TOOL_CALL_RESULT`` (the result's JSON / the error's text, ``metadata.error``) |
| ``agent-spawned`` / ``agent-completed`` | ``STEP_STARTED`` / ``STEP_FINISHED`` (``stepName`` ``role (agentId)``) |
| ``tasks-update`` | ``STATE_SNAPSHOT`` ``{"tasks": [...]}`` first, then ``STATE_DELTA`` replacing ``/tasks`` |
| ``status``, ``error``, ``thread-title-updated``, ``run-resumed``, ``content`` | ``CUSTOM`` named ``runyard.<type>`` (a ``content`` event's value: its ``blocks``, as ``/v1`` sends them; AG-UI has no event for an answer's images or files) |
| ``run-finish`` completed / cancelled | ``RUN_FINISHED`` (``usage``; outcome ``cancelled``) |
| ``run-finish`` error, a run that closed unfinished | ``RUN_ERROR`` |
| suspended for approval | ``RUN_FINISHED`` with outcome ``interrupt``: one interrupt per waiting question |

Events are plain dicts in AG-UI's wire shape (camelCase); the tests validate every one with the
``ag-ui-protocol`` types, which runyard does not need at run time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from runyard.faces.face_events import awaiting_client, going_away, taken_over_message
from runyard.protocol import (
    AgentCompletedEvent,
    AgentSpawnedEvent,
    ConfirmationRequestPayload,
    ReasoningDeltaEvent,
    RunFinishEvent,
    TasksUpdateEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolErrorEvent,
    ToolResultEvent,
    WireEvent,
)
from runyard.protocol.payloads import RunUsage
from runyard.service import RunPause

__all__ = ["ANSWER_SCHEMA", "AguiEvents"]

Event = dict[str, Any]

ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["approved"],
    "properties": {
        "approved": {"type": "boolean"},
        "reason": {"type": "string"},
        "args": {"type": "object"},
        "userInput": {"type": "string"},
        "answers": {"type": "array", "items": {"type": "object"}},
    },
}
"""What an interrupt's resume ``payload`` is: the answer ``POST /v1/confirm`` takes."""


@dataclass(slots=True)
class _Block:
    """The text or reasoning message being streamed."""

    kind: str
    agent_id: str
    message_id: str


class AguiEvents:
    """Maps one run's events; ``thread_id``/``run_id`` are the AG-UI input's, ``runyard_run_id``
    the run followed (told on ``RUN_STARTED``'s metadata)."""

    def __init__(self, thread_id: str, run_id: str, runyard_run_id: str) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self.runyard_run_id = runyard_run_id
        self._open: _Block | None = None
        self._messages = 0
        self._steps: dict[str, str] = {}
        self._tasks_sent = False

    def started(self) -> list[Event]:
        return [
            {
                "type": "RUN_STARTED",
                "threadId": self.thread_id,
                "runId": self.run_id,
                "metadata": {"runyardRunId": self.runyard_run_id},
            }
        ]

    def event(self, event: WireEvent) -> list[Event]:
        match event:
            case TextDeltaEvent() | ReasoningDeltaEvent():
                return self._delta(event)
            case ToolCallEvent():
                return [*self._close(), *_tool_call(event)]
            case ToolResultEvent():
                result = json.dumps(event.payload.result)
                return [*self._close(), _tool_result(event.payload.tool_call_id, result)]
            case ToolErrorEvent():
                error = _tool_result(event.payload.tool_call_id, event.payload.error, error=True)
                return [*self._close(), error]
            case AgentSpawnedEvent():
                return [*self._close(), self._step_started(event)]
            case AgentCompletedEvent():
                return [*self._close(), *self._step_finished(event.agent_id)]
            case TasksUpdateEvent():
                return [*self._close(), self._tasks(event)]
            case RunFinishEvent():
                return [*self._ending(), self._finish(event)]
            case _:
                return [*self._close(), _custom(event)] if event.type in _CUSTOM else []

    def paused(self, pause: RunPause, waiting: list[ConfirmationRequestPayload]) -> list[Event]:
        ending = self._ending()
        if pause.status == "cancelled":
            return [*ending, self._finished(outcome={"type": "cancelled"})]
        if pause.status == "suspended" and waiting:
            interrupts = [_interrupt(question) for question in waiting]
            return [
                *ending,
                self._finished(outcome={"type": "interrupt", "interrupts": interrupts}),
            ]
        if pause.status == "suspended":  # on a file request only: no person can answer it
            return [*ending, _run_error(awaiting_client(self.thread_id), "awaiting_client")]
        return [*ending, _run_error(pause.reason or "the run ended unfinished", "run_failed")]

    def stopped(self, last_event_id: int) -> list[Event]:
        message = going_away(self.thread_id, last_event_id)
        return [*self._ending(), _run_error(message, "server_shutdown")]

    def taken_over(self, after_event_id: int) -> list[Event]:
        message = taken_over_message(self.thread_id, after_event_id)
        return [*self._ending(), _run_error(message, "run_taken_over")]

    def ended(self) -> list[Event]:
        return []

    def _delta(self, event: TextDeltaEvent | ReasoningDeltaEvent) -> list[Event]:
        if not event.payload.text:
            return []
        kind = "text" if isinstance(event, TextDeltaEvent) else "reasoning"
        opened: list[Event] = []
        block = self._open
        if block is None or (block.kind, block.agent_id) != (kind, event.agent_id):
            opened = self._close()
            self._messages += 1
            block = self._open = _Block(kind, event.agent_id, f"{self.run_id}-{self._messages}")
            opened += _block_start(block)
        content = "TEXT_MESSAGE_CONTENT" if kind == "text" else "REASONING_MESSAGE_CONTENT"
        return [
            *opened,
            {"type": content, "messageId": block.message_id, "delta": event.payload.text},
        ]

    def _close(self) -> list[Event]:
        block, self._open = self._open, None
        if block is None:
            return []
        if block.kind == "text":
            return [{"type": "TEXT_MESSAGE_END", "messageId": block.message_id}]
        return [
            {"type": "REASONING_MESSAGE_END", "messageId": block.message_id},
            {"type": "REASONING_END", "messageId": block.message_id},
        ]

    def _ending(self) -> list[Event]:
        """Close what is open (a message, the sub-agents' steps) before the run's last event."""
        closed = self._close()
        for agent_id in list(self._steps):
            closed += self._step_finished(agent_id)
        return closed

    def _step_started(self, event: AgentSpawnedEvent) -> Event:
        name = self._steps[event.agent_id] = f"{event.payload.role} ({event.agent_id})"
        return {"type": "STEP_STARTED", "stepName": name}

    def _step_finished(self, agent_id: str) -> list[Event]:
        name = self._steps.pop(agent_id, None)
        return [] if name is None else [{"type": "STEP_FINISHED", "stepName": name}]

    def _tasks(self, event: TasksUpdateEvent) -> Event:
        tasks = [task.model_dump(mode="json") for task in event.payload.tasks]
        if self._tasks_sent:
            return {
                "type": "STATE_DELTA",
                "delta": [{"op": "replace", "path": "/tasks", "value": tasks}],
            }
        self._tasks_sent = True
        return {"type": "STATE_SNAPSHOT", "snapshot": {"tasks": tasks}}

    def _finish(self, event: RunFinishEvent) -> Event:
        payload = event.payload
        usage = _usage(payload.usage)
        if payload.status == "error":
            return _run_error(payload.reason or "the run failed", "run_failed", usage)
        if payload.status == "cancelled":
            return self._finished(outcome={"type": "cancelled"}, usage=usage)
        return self._finished(result=payload.output, usage=usage)

    def _finished(self, **fields: Any) -> Event:
        given = {key: value for key, value in fields.items() if value is not None}
        return {"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id, **given}


_CUSTOM = frozenset({"status", "error", "thread-title-updated", "run-resumed", "content"})
"""Wire events with no AG-UI counterpart, passed on as ``CUSTOM`` (the rest are not shown)."""


def _block_start(block: _Block) -> list[Event]:
    if block.kind == "text":
        return [{"type": "TEXT_MESSAGE_START", "messageId": block.message_id, "role": "assistant"}]
    return [
        {"type": "REASONING_START", "messageId": block.message_id},
        {"type": "REASONING_MESSAGE_START", "messageId": block.message_id, "role": "reasoning"},
    ]


def _tool_call(event: ToolCallEvent) -> list[Event]:
    call_id = event.payload.tool_call_id
    return [
        {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": event.payload.tool_name},
        {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": json.dumps(event.payload.args)},
        {"type": "TOOL_CALL_END", "toolCallId": call_id},
    ]


def _tool_result(call_id: str, content: str, *, error: bool = False) -> Event:
    result: Event = {
        "type": "TOOL_CALL_RESULT",
        "messageId": f"{call_id}-result",
        "toolCallId": call_id,
        "content": content,
        "role": "tool",
    }
    if error:
        result["metadata"] = {"error": True}
    return result


def _custom(event: WireEvent) -> Event:
    value = event.model_dump(mode="json")["payload"]
    return {"type": "CUSTOM", "name": f"runyard.{event.type}", "value": value}


def _interrupt(question: ConfirmationRequestPayload) -> Event:
    kind = question.input_type or "approval"
    return {
        "id": question.request_id,
        "reason": "tool_approval" if kind == "approval" else f"tool_input:{kind}",
        "message": question.message,
        "toolCallId": question.tool_call_id,
        "responseSchema": ANSWER_SCHEMA,
        "metadata": {"confirmation": question.model_dump(mode="json")},
    }


def _usage(usage: RunUsage | None) -> list[Event] | None:
    if usage is None:
        return None
    counts = {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "totalTokens": usage.total_tokens,
    }
    return [counts]


def _run_error(message: str, code: str, usage: list[Event] | None = None) -> Event:
    error: Event = {"type": "RUN_ERROR", "message": message, "code": code}
    if usage is not None:
        error["usage"] = usage
    return error
