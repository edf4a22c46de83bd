"""``UiMessageChunks``: one runyard run as the AI SDK's UI message stream chunks — the whole
mapping of the Vercel AI SDK face. The run is one assistant message.

| runyard | UI message chunks |
|---|---|
| (the stream opens) | ``start`` (``messageId`` for a new run; ``messageMetadata``: thread and run), ``start-step`` |
| orchestrator ``text-delta`` | ``text-start`` once, ``text-delta``, ``text-end`` when anything else comes |
| orchestrator ``reasoning-delta`` | ``reasoning-start``, ``reasoning-delta``, ``reasoning-end`` |
| orchestrator ``content`` | ``file`` (images, audio, video, files: ``url`` a ``data:`` URL or the file's URL), ``source-url`` (a citation), ``data-json`` (structured JSON) |
| ``tool-call`` (any agent) | ``tool-input-start``, ``tool-input-delta`` (the arguments' JSON), ``tool-input-available`` — ``dynamic``: the tools run on the server |
| ``confirmation-request`` | ``tool-approval-request`` (``approvalId`` = the ``requestId``) |
| ``tool-result`` | ``tool-output-available`` |
| ``tool-error`` | ``tool-output-denied`` for a call this request denied, else ``tool-output-error`` |
| ``agent-spawned`` / ``agent-completed`` | ``data-agent`` (``id`` = the sub-agent, updated in place) |
| ``tasks-update`` | ``data-tasks`` (``id`` ``tasks``, updated in place) |
| ``status`` | transient ``data-status`` |
| ``run-finish`` completed | ``finish-step``, ``finish`` (``stop``; ``messageMetadata.usage``) |
| suspended for approval | ``finish-step``, ``finish`` (``tool-calls``; ``messageMetadata.awaitingApproval``) |
| suspended on a file request only | ``finish-step``, ``finish`` (``tool-calls``; ``messageMetadata.awaitingClient``) |
| ``run-finish`` cancelled | ``abort`` |
| ``run-finish`` error, a run closed unfinished | ``error``, ``finish`` (``error``) |
| (the stream ends) | ``[DONE]`` |

A sub-agent's own text and reasoning are not streamed into the message: its result arrives as
its ``data-agent`` part and as its ``delegate`` tool output.
"""

from __future__ import annotations

import json
from typing import Any

from runyard.faces.face_content import block_url
from runyard.faces.face_events import going_away, taken_over_message
from runyard.messages import (
    AudioPart,
    CitationPart,
    ContentBlock,
    FilePart,
    ImagePart,
    JsonPart,
    VideoPart,
)
from runyard.protocol import (
    AgentCompletedEvent,
    AgentSpawnedEvent,
    ConfirmationRequestEvent,
    ConfirmationRequestPayload,
    ContentEvent,
    ReasoningDeltaEvent,
    RunFinishEvent,
    StatusEvent,
    TasksUpdateEvent,
    TextDeltaEvent,
    ToolCallEvent,
    ToolErrorEvent,
    ToolResultEvent,
    WireEvent,
)
from runyard.protocol.payloads import RunUsage
from runyard.service import ORCHESTRATOR_ID, RunPause

__all__ = ["DONE", "UiMessageChunks"]

Chunk = dict[str, Any]
DONE = "[DONE]"
"""The last frame's data: the stream is over."""


class UiMessageChunks:
    """Maps one run's events to chunks; ``message_id`` is the new assistant message's (None when
    the request carries the client's last message on), ``denied`` the tool calls it denied."""

    def __init__(
        self, thread_id: str, run_id: str, message_id: str | None, denied: set[str]
    ) -> None:
        self.metadata = {"threadId": thread_id, "runId": run_id}
        self.message_id = message_id
        self.denied = denied
        self._open: tuple[str, str] | None = None  # (kind, id) of the text or reasoning part
        self._parts = 0

    def started(self) -> list[Chunk]:
        start: Chunk = {"type": "start", "messageMetadata": self.metadata}
        if self.message_id is not None:
            start["messageId"] = self.message_id
        return [start, {"type": "start-step"}]

    def event(self, event: WireEvent) -> list[Chunk]:
        match event:
            case TextDeltaEvent() | ReasoningDeltaEvent() | ContentEvent():
                return self._output(event)
            case ToolCallEvent():
                return [*self._close(), *_tool_input(event)]
            case ConfirmationRequestEvent():
                payload = event.payload
                asked = {
                    "type": "tool-approval-request",
                    "approvalId": payload.request_id,
                    "toolCallId": payload.tool_call_id,
                }
                return [*self._close(), asked]
            case ToolResultEvent():
                return [*self._close(), _output(event.payload.tool_call_id, event.payload.result)]
            case ToolErrorEvent():
                return [*self._close(), self._tool_error(event)]
            case AgentSpawnedEvent() | AgentCompletedEvent():
                return [*self._close(), _agent(event)]
            case TasksUpdateEvent():
                tasks = [task.model_dump(mode="json") for task in event.payload.tasks]
                return [
                    *self._close(),
                    {"type": "data-tasks", "id": "tasks", "data": {"tasks": tasks}},
                ]
            case StatusEvent():
                status = {"message": event.payload.message}
                return [{"type": "data-status", "data": status, "transient": True}]
            case RunFinishEvent():
                return [*self._close(), *self._finish(event)]
            case _:
                return []

    def paused(self, pause: RunPause, waiting: list[ConfirmationRequestPayload]) -> list[Chunk]:
        closed = self._close()
        if pause.status == "suspended":
            # On a file request only, no person can answer: the client driving the thread does.
            awaiting = (
                {"awaitingApproval": [q.request_id for q in waiting]}
                if waiting
                else {"awaitingClient": True}
            )
            metadata = {**self.metadata, **awaiting}
            return [*closed, *self._finished("tool-calls", metadata)]
        if pause.status == "cancelled":
            return [*closed, _abort(pause.reason)]
        return [*closed, *self._failed(pause.reason or "the run ended unfinished")]

    def stopped(self, last_event_id: int) -> list[Chunk]:
        text = going_away(self.metadata["threadId"], last_event_id)
        return [*self._close(), {"type": "error", "errorText": text}]

    def taken_over(self, after_event_id: int) -> list[Chunk]:
        text = taken_over_message(self.metadata["threadId"], after_event_id)
        return [*self._close(), {"type": "error", "errorText": text}]

    def ended(self) -> list[Any]:
        return [DONE]

    def _output(self, event: TextDeltaEvent | ReasoningDeltaEvent | ContentEvent) -> list[Chunk]:
        """The orchestrator's answer: its text and reasoning streamed, its blocks whole."""
        if event.agent_id != ORCHESTRATOR_ID:
            return []
        if isinstance(event, ContentEvent):
            return [*self._close(), *(self._block(b) for b in event.payload.blocks)]
        return self._delta(event)

    def _delta(self, event: TextDeltaEvent | ReasoningDeltaEvent) -> list[Chunk]:
        if not event.payload.text:
            return []
        kind = "text" if isinstance(event, TextDeltaEvent) else "reasoning"
        opened: list[Chunk] = []
        if self._open is None or self._open[0] != kind:
            opened = self._close()
            self._parts += 1
            self._open = (kind, f"{kind}-{self._parts}")
            opened.append({"type": f"{kind}-start", "id": self._open[1]})
        delta = {"type": f"{kind}-delta", "id": self._open[1], "delta": event.payload.text}
        return [*opened, delta]

    def _block(self, block: ContentBlock) -> Chunk:
        if isinstance(block, ImagePart | AudioPart | VideoPart | FilePart):
            made = {"type": "file", "url": block_url(block), "mediaType": block.mime_type}
            return made if block.filename is None else {**made, "filename": block.filename}
        if isinstance(block, CitationPart):
            self._parts += 1
            source = {"type": "source-url", "sourceId": f"source-{self._parts}"}
            return {**source, "url": block.url or "", "title": block.title}
        if isinstance(block, JsonPart):
            return {"type": "data-json", "data": block.data}
        return {"type": "data-content", "data": block.model_dump(mode="json")}

    def _close(self) -> list[Chunk]:
        if self._open is None:
            return []
        (kind, part_id), self._open = self._open, None
        return [{"type": f"{kind}-end", "id": part_id}]

    def _tool_error(self, event: ToolErrorEvent) -> Chunk:
        call_id = event.payload.tool_call_id
        if call_id in self.denied:
            return {"type": "tool-output-denied", "toolCallId": call_id}
        return {
            "type": "tool-output-error",
            "toolCallId": call_id,
            "errorText": event.payload.error,
            "dynamic": True,
        }

    def _finish(self, event: RunFinishEvent) -> list[Chunk]:
        payload = event.payload
        if payload.status == "cancelled":
            return [_abort(payload.reason)]
        if payload.status == "error":
            return self._failed(payload.reason or "the run failed")
        metadata = {**self.metadata, **_usage(payload.usage)}
        if payload.output is not None:
            metadata["output"] = payload.output
        return self._finished("stop", metadata)

    def _failed(self, reason: str) -> list[Chunk]:
        return [{"type": "error", "errorText": reason}, *self._finished("error", self.metadata)]

    def _finished(self, reason: str, metadata: dict[str, Any]) -> list[Chunk]:
        finish = {"type": "finish", "finishReason": reason, "messageMetadata": metadata}
        return [{"type": "finish-step"}, finish]


def _tool_input(event: ToolCallEvent) -> list[Chunk]:
    call = event.payload
    named = {"toolCallId": call.tool_call_id, "toolName": call.tool_name, "dynamic": True}
    return [
        {"type": "tool-input-start", **named},
        {
            "type": "tool-input-delta",
            "toolCallId": call.tool_call_id,
            "inputTextDelta": json.dumps(call.args),
        },
        {"type": "tool-input-available", **named, "input": call.args},
    ]


def _output(call_id: str, output: Any) -> Chunk:
    return {
        "type": "tool-output-available",
        "toolCallId": call_id,
        "output": output,
        "dynamic": True,
    }


def _agent(event: AgentSpawnedEvent | AgentCompletedEvent) -> Chunk:
    data: dict[str, Any]
    if isinstance(event, AgentCompletedEvent):
        done = event.payload
        data = {"role": done.role, "status": done.outcome, "result": done.result}
    else:
        data = {"role": event.payload.role, "status": "active", "parentId": event.payload.parent_id}
    return {"type": "data-agent", "id": event.agent_id, "data": data}


def _abort(reason: str | None) -> Chunk:
    return {"type": "abort", "reason": reason or "cancelled"}


def _usage(usage: RunUsage | None) -> dict[str, Any]:
    return {} if usage is None else {"usage": usage.model_dump(mode="json")}
