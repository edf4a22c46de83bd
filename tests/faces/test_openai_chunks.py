"""``CompletionChunks`` and ``completion``: the OpenAI face's one mapping, and the body folded
from it — the whole chunk sequence of each way a run ends, and the completion it folds to."""

from __future__ import annotations

from typing import Any

from runyard.faces.openai.chunks import CompletionChunks
from runyard.faces.openai.completion import completion
from runyard.protocol import (
    ConfirmationRequestPayload,
    ReasoningDeltaEvent,
    RunFinishEvent,
    TextDeltaEvent,
    ToolCallEvent,
    WireEvent,
)
from runyard.service import ORCHESTRATOR_ID, RunPause

HEAD = {"id": "chatcmpl-r1", "object": "chat.completion.chunk", "created": 7, "model": "a"}
FOLLOWED = {"threadId": "t1", "runId": "r1"}


def mapper(include_usage: bool = True) -> CompletionChunks:
    return CompletionChunks("chatcmpl-r1", "a", 7, dict(FOLLOWED), include_usage)


def event(kind: str, payload: dict[str, Any], agent: str = ORCHESTRATOR_ID) -> WireEvent:
    classes: dict[str, Any] = {
        "text-delta": TextDeltaEvent,
        "reasoning-delta": ReasoningDeltaEvent,
        "tool-call": ToolCallEvent,
        "run-finish": RunFinishEvent,
    }
    built: WireEvent = classes[kind].model_validate(
        {"type": kind, "runId": "r1", "agentId": agent, "payload": payload}
    )
    return built


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return {**HEAD, "choices": [choice], **extra}


def played(chunks: CompletionChunks, events: list[WireEvent]) -> list[Any]:
    return [
        *chunks.started(),
        *(c for e in events for c in chunks.event(e)),
        *chunks.ended(),
    ]


COMPLETED = [
    event("reasoning-delta", {"text": "hm"}),
    event("text-delta", {"text": "sub"}, agent="sub-1"),
    event("tool-call", {"toolCallId": "c1", "toolName": "calculator", "args": {}}),
    event("text-delta", {"text": "4"}),
    event(
        "run-finish",
        {"status": "completed", "usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}},
    ),
]


def test_a_completed_run_streams_reasoning_text_the_finish_and_usage() -> None:
    assert played(mapper(), COMPLETED) == [
        chunk({"role": "assistant", "content": ""}),
        chunk({"reasoning_content": "hm"}),
        chunk({"content": "4"}),
        chunk({}, "stop", x_runyard={**FOLLOWED, "status": "completed"}),
        {
            **HEAD,
            "choices": [],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        },
        "[DONE]",
    ]
    assert mapper(include_usage=False).event(COMPLETED[-1]) == [
        chunk({}, "stop", x_runyard={**FOLLOWED, "status": "completed"})
    ]


def test_the_completion_is_the_chunks_folded() -> None:
    status, body = completion(played(mapper(), COMPLETED))

    assert status == 200
    assert body == {
        "id": "chatcmpl-r1",
        "created": 7,
        "model": "a",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "4", "reasoning_content": "hm"},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        "x_runyard": {**FOLLOWED, "status": "completed"},
    }


def test_a_run_waiting_for_approval_says_what_waits_and_never_asks_for_tool_calls() -> None:
    question = ConfirmationRequestPayload.model_validate(
        {
            "requestId": "cr_1",
            "severity": "info",
            "message": "Save it?",
            "toolCallId": "c1",
            "toolName": "save_note",
            "args": {"text": "milk"},
        }
    )
    chunks = mapper().paused(RunPause(9, "suspended"), [question])

    approvals = [
        {
            "requestId": "cr_1",
            "toolCallId": "c1",
            "toolName": "save_note",
            "args": {"text": "milk"},
            "message": "Save it?",
            "confirmUrl": "/v1/confirm/cr_1",
        }
    ]
    text = 'Waiting for approval:\n- save_note({"text": "milk"}): requestId cr_1'
    assert chunks == [
        chunk({"content": text}),
        chunk(
            {},
            "stop",
            x_runyard={**FOLLOWED, "status": "awaiting_approval", "approvals": approvals},
        ),
    ]
    status, body = completion(chunks)
    assert status == 200
    assert "usage" not in body
    assert body["choices"][0]["message"] == {"role": "assistant", "content": text}


def test_a_failed_run_is_an_error_a_502_and_a_server_going_away_a_503() -> None:
    failed = mapper().event(event("run-finish", {"status": "error", "reason": "boom"}))
    closed = mapper().paused(RunPause(9, "failed", "lost"), [])
    stopped = mapper().stopped(12)

    assert failed == [
        {"error": {"message": "boom", "type": "server_error", "param": None, "code": "run_failed"}}
    ]
    assert completion(failed) == (502, failed[0])
    assert completion(closed)[0] == 502
    assert completion(stopped)[0] == 503
    assert "/v1/events/t1?lastEventId=12" in stopped[0]["error"]["message"]


def test_a_cancelled_run_finishes_with_stop_and_says_so() -> None:
    cancelled = mapper().event(event("run-finish", {"status": "cancelled", "reason": "user"}))
    paused = mapper().paused(RunPause(9, "cancelled", "user"), [])

    assert cancelled == paused == [chunk({}, "stop", x_runyard={**FOLLOWED, "status": "cancelled"})]
