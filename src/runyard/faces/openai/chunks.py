"""``CompletionChunks``: one runyard run as OpenAI ``chat.completion.chunk`` objects — the whole
mapping of the OpenAI-compatible face. A streamed answer sends them as they come; an answer in
one body folds the same chunks (``completion``), so the two cannot drift.

| runyard | chunks |
|---|---|
| (the stream opens) | a chunk with ``delta.role`` ``assistant`` |
| orchestrator ``text-delta`` | ``delta.content`` |
| orchestrator ``reasoning-delta`` | ``delta.reasoning_content`` (the extension DeepSeek and vLLM use) |
| orchestrator ``content`` | ``delta.images`` (``image_url`` parts, as OpenRouter and vLLM send images) and ``delta.x_runyard_content`` (every other block) |
| ``tool-call``, ``tool-result``, sub-agents, tasks | nothing: the tools ran on the server (follow them on ``/v1/events/{threadId}``) |
| ``run-finish`` completed | ``finish_reason`` ``stop``, ``x_runyard`` (status ``completed``); then, when asked, the ``usage`` chunk (no ``choices``) |
| suspended for approval | ``delta.content`` naming each tool call that waits, ``finish_reason`` ``stop``, ``x_runyard`` (status ``awaiting_approval``, ``approvals``) |
| suspended on a file request only | ``delta.content`` saying so, ``finish_reason`` ``stop``, ``x_runyard`` status ``awaiting_client`` |
| ``run-finish`` cancelled | ``finish_reason`` ``stop``, ``x_runyard`` (status ``cancelled``) |
| ``run-finish`` error, a run closed unfinished, the server going away | ``{"error": {...}}`` (the ``openai`` client raises ``APIError``) |
| (the stream ends) | ``[DONE]`` |

Never ``tool_calls``: an OpenAI client would run those itself.
"""

from __future__ import annotations

import json
from typing import Any

from runyard.faces.face_events import awaiting_client, going_away, taken_over_message
from runyard.faces.openai.content_parts import answer_content
from runyard.protocol import (
    ConfirmationRequestPayload,
    ContentEvent,
    ReasoningDeltaEvent,
    RunFinishEvent,
    TextDeltaEvent,
    WireEvent,
)
from runyard.protocol.payloads import RunUsage
from runyard.service import ORCHESTRATOR_ID, RunPause

__all__ = ["DONE", "CompletionChunks", "confirm_url"]

Chunk = dict[str, Any]
DONE = "[DONE]"
"""The last frame's data: the stream is over."""


def confirm_url(request_id: str) -> str:
    """Where ``/v1`` answers a confirmation."""
    return f"/v1/confirm/{request_id}"


class CompletionChunks:
    """Maps one run's events to chunks of the completion ``completion_id`` of ``model``;
    ``include_usage``: end with the ``usage`` chunk (when the run's usage is known)."""

    def __init__(
        self,
        completion_id: str,
        model: str,
        created: int,
        followed: dict[str, str],
        include_usage: bool,
    ) -> None:
        self.head = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
        }
        self.followed = followed
        """``threadId`` and ``runId``: the start of every ``x_runyard``."""
        self.include_usage = include_usage

    def started(self) -> list[Chunk]:
        return [self._chunk({"role": "assistant", "content": ""})]

    def event(self, event: WireEvent) -> list[Chunk]:
        match event:
            case TextDeltaEvent() if event.agent_id == ORCHESTRATOR_ID and event.payload.text:
                return [self._chunk({"content": event.payload.text})]
            case ReasoningDeltaEvent() if event.agent_id == ORCHESTRATOR_ID and event.payload.text:
                return [self._chunk({"reasoning_content": event.payload.text})]
            case ContentEvent() if event.agent_id == ORCHESTRATOR_ID:
                return [self._chunk(answer_content(event.payload.blocks))]
            case RunFinishEvent():
                return self._finish(event)
            case _:
                return []

    def paused(self, pause: RunPause, waiting: list[ConfirmationRequestPayload]) -> list[Chunk]:
        if pause.status == "suspended":
            return self._awaiting(waiting)
        if pause.status == "cancelled":
            return [self._finished("cancelled")]
        return [_error(pause.reason or "the run ended unfinished", "run_failed")]

    def stopped(self, last_event_id: int) -> list[Chunk]:
        text = going_away(self.followed["threadId"], last_event_id)
        return [_error(text, "server_going_away")]

    def taken_over(self, after_event_id: int) -> list[Chunk]:
        text = taken_over_message(self.followed["threadId"], after_event_id)
        return [_error(text, "run_taken_over")]

    def ended(self) -> list[Any]:
        return [DONE]

    def _finish(self, event: RunFinishEvent) -> list[Chunk]:
        payload = event.payload
        if payload.status == "error":
            return [_error(payload.reason or "the run failed", "run_failed")]
        status = "cancelled" if payload.status == "cancelled" else "completed"
        extra = {} if payload.output is None else {"output": payload.output}
        finished = [self._finished(status, **extra)]
        if self.include_usage and payload.usage is not None:
            finished.append({**self.head, "choices": [], "usage": _usage(payload.usage)})
        return finished

    def _awaiting(self, waiting: list[ConfirmationRequestPayload]) -> list[Chunk]:
        if not waiting:
            said = self._chunk({"content": awaiting_client(self.followed["threadId"])})
            return [said, self._finished("awaiting_client")]
        lines = [
            f"- {q.tool_name}({json.dumps(q.args)}): requestId {q.request_id}" for q in waiting
        ]
        text = "\n".join(["Waiting for approval:", *lines])
        approvals = [
            {
                "requestId": q.request_id,
                "toolCallId": q.tool_call_id,
                "toolName": q.tool_name,
                "args": q.args,
                "message": q.message,
                "confirmUrl": confirm_url(q.request_id),
            }
            for q in waiting
        ]
        said = self._chunk({"content": text})
        return [said, self._finished("awaiting_approval", approvals=approvals)]

    def _finished(self, status: str, **extension: Any) -> Chunk:
        finished = self._chunk({}, "stop")
        finished["x_runyard"] = {**self.followed, "status": status, **extension}
        return finished

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> Chunk:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**self.head, "choices": [choice]}


def _usage(usage: RunUsage) -> dict[str, int]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
    }


def _error(message: str, code: str) -> Chunk:
    return {"error": {"message": message, "type": "server_error", "param": None, "code": code}}
