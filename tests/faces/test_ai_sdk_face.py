"""The Vercel AI SDK face (``POST /ai-sdk/{agentId}``) on a real server: the UI message stream
protocol's header and chunks for a tool call, an approval answered by the next request, a client
that goes away (the run is cancelled), bad bodies, and the ``ai`` package's own chat (the core of
``useChat``) driving all of it. The same runs are on the thread's ``/v1`` event log."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from faces_server import PLAN_AND_DELEGATE, data_frames, node_script, serving, thread_events

from runyard.models.demo_script import demo_png


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("ai_sdk")) as url:
        yield url


def user(text: str) -> dict[str, Any]:
    return {"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}


def post(base: str, chat_id: str, *messages: dict[str, Any]) -> list[Any]:
    """The chunks of one request (``[DONE]`` last)."""
    body = {"id": chat_id, "messages": list(messages), "trigger": "submit-message"}
    response = httpx.post(f"{base}/ai-sdk/assistant", json=body, timeout=60)
    assert response.status_code == 200, response.text
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.headers["content-type"] == "text/event-stream"
    return data_frames(response)


def kinds(chunks: list[Any]) -> list[str]:
    """Each chunk's type, deltas left out."""
    named = [c if c == "[DONE]" else c["type"] for c in chunks]
    return [kind for kind in named if not kind.endswith("-delta")]


def test_a_tool_call_streams_as_ui_message_chunks_with_usage(base: str) -> None:
    chunks = post(base, "tool", user('/tool calculator {"expression": "2+3*4"}'))

    assert kinds(chunks) == [
        "start",
        "start-step",
        "tool-input-start",
        "tool-input-available",
        "tool-output-available",
        "text-start",
        "text-end",
        "finish-step",
        "finish",
        "[DONE]",
    ]
    start, finish = chunks[0], chunks[-2]
    run_id = start["messageMetadata"]["runId"]
    assert start["messageId"] == f"msg-{run_id}"
    call = next(c for c in chunks if c["type"] == "tool-input-available")
    assert call["toolName"] == "calculator"
    assert call["input"] == {"expression": "2+3*4"}
    assert call["dynamic"] is True
    output = next(c for c in chunks if c["type"] == "tool-output-available")
    assert output["output"] == {"result": 14}
    assert finish["finishReason"] == "stop"
    usage = finish["messageMetadata"]["usage"]
    assert usage["totalTokens"] == usage["inputTokens"] + usage["outputTokens"] > 0
    logged = thread_events(base, "tool", run_id)
    assert [e["type"] for e in logged if e["type"] != "text-delta"] == [
        "run-start",
        "tool-call",
        "tool-result",
        "run-finish",
    ]


def test_reasoning_streams_as_a_reasoning_part(base: str) -> None:
    chunks = post(base, "reasoning", user("hello there"))

    assert kinds(chunks)[2:4] == ["reasoning-start", "reasoning-end"]
    reasoning = "".join(c["delta"] for c in chunks[:-1] if c["type"] == "reasoning-delta")
    assert "hello there" in reasoning


def test_a_sub_agent_and_the_task_list_are_data_parts(base: str) -> None:
    chunks = post(base, "orchestra", user(PLAN_AND_DELEGATE))

    data = [c for c in chunks[:-1] if c["type"].startswith("data-")]
    assert [(c["type"], c["data"].get("status")) for c in data] == [
        ("data-tasks", None),
        ("data-agent", "active"),
        ("data-agent", "completed"),
        ("data-tasks", None),
    ]
    assert data[1]["id"] == data[2]["id"]  # one part, updated in place
    assert data[2]["data"]["result"] == 'calculator returned {"result": 2}.'
    assert data[3]["data"]["tasks"][0]["status"] == "completed"
    called = [c["toolName"] for c in chunks[:-1] if c["type"] == "tool-input-available"]
    assert called == ["plan", "delegate", "plan", "calculator"]


def test_an_approval_is_asked_and_the_next_request_answers_it(base: str) -> None:
    asked = post(base, "approval", user('/tool save_note {"text": "keep"}'))
    request = next(c for c in asked[:-1] if c["type"] == "tool-approval-request")
    call = next(c for c in asked[:-1] if c["type"] == "tool-input-available")
    finish = asked[-2]
    assert request["toolCallId"] == call["toolCallId"]
    assert finish["finishReason"] == "tool-calls"
    assert finish["messageMetadata"]["awaitingApproval"] == [request["approvalId"]]

    answered = {
        "id": asked[0]["messageId"],
        "role": "assistant",
        "parts": [
            {
                "type": "dynamic-tool",
                "toolName": "save_note",
                "toolCallId": call["toolCallId"],
                "state": "approval-responded",
                "input": call["input"],
                "approval": {"id": request["approvalId"], "approved": True},
            }
        ],
    }
    resumed = post(base, "approval", user('/tool save_note {"text": "keep"}'), answered)

    assert "messageId" not in resumed[0]  # the client's assistant message goes on
    output = next(c for c in resumed[:-1] if c["type"] == "tool-output-available")
    assert output["toolCallId"] == call["toolCallId"]
    assert output["output"]["text"] == "keep"
    assert resumed[-2]["finishReason"] == "stop"
    run_id = asked[0]["messageMetadata"]["runId"]
    logged = thread_events(base, "approval", run_id)
    assert "confirmation-request" in [e["type"] for e in logged]


def test_a_denied_approval_is_a_denied_tool_output(base: str) -> None:
    asked = post(base, "denied", user('/tool save_note {"text": "no"}'))
    request = next(c for c in asked[:-1] if c["type"] == "tool-approval-request")
    denied = {
        "id": "a1",
        "role": "assistant",
        "parts": [
            {
                "type": "dynamic-tool",
                "toolName": "save_note",
                "toolCallId": request["toolCallId"],
                "state": "approval-responded",
                "approval": {"id": request["approvalId"], "approved": False, "reason": "no"},
            }
        ],
    }

    resumed = post(base, "denied", denied)

    assert {"type": "tool-output-denied", "toolCallId": request["toolCallId"]} in resumed


def test_a_client_that_goes_away_cancels_the_run(base: str) -> None:
    body = {"id": "gone", "messages": [user("/delay 100\nplease answer slowly, for a while")]}
    with (
        httpx.Client(timeout=60) as client,
        client.stream("POST", f"{base}/ai-sdk/assistant", json=body) as response,
    ):
        first = next(line for line in response.iter_lines() if line)
    run_id = data_frames(httpx.Response(200, text=first + "\n\n"))[0]["messageMetadata"]["runId"]

    logged = thread_events(base, "gone", run_id)

    finish = logged[-1]["payload"]
    assert (finish["status"], finish["reason"]) == ("cancelled", "user_cancelled")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"messages": [user("hi")]}, "body.id"),
        ({"id": "bad", "messages": []}, "body.messages"),
        (
            {"id": "bad", "messages": [{"id": "a", "role": "assistant", "parts": []}]},
            "body.messages.0.role",
        ),
        ({"id": "bad", "messages": [user(" ")]}, "body.messages.0.parts"),
        (
            {
                "id": "bad",
                "messages": [
                    {
                        "id": "a",
                        "role": "assistant",
                        "parts": [{"state": "approval-responded", "approval": {"id": "cr_x"}}],
                    }
                ],
            },
            "body.messages.0.parts.0.approval",
        ),
    ],
)
def test_a_bad_body_is_422_naming_the_field(base: str, body: dict[str, Any], field: str) -> None:
    response = httpx.post(f"{base}/ai-sdk/assistant", json=body, timeout=30)

    assert response.status_code == 422
    assert field in [f["field"] for f in response.json()["error"]["fields"]]


def test_the_ai_sdk_chat_runs_a_tool_an_approval_and_a_stop(base: str) -> None:
    seen = node_script("ai_sdk_chat.mjs", base, "use-chat")

    tool = seen["tool"]
    (call,) = [p for p in tool["parts"] if p["type"] == "dynamic-tool"]
    assert (call["toolName"], call["state"], call["output"]) == (
        "calculator",
        "output-available",
        {"result": 14},
    )
    assert "14" in next(p["text"] for p in tool["parts"] if p["type"] == "text")
    assert tool["metadata"]["usage"]["totalTokens"] > 0
    (waiting,) = [p for p in seen["asked"]["parts"] if p["type"] == "dynamic-tool"]
    assert waiting["state"] == "approval-requested"
    resumed = seen["resumed"]
    assert resumed["id"] == seen["asked"]["id"]  # one assistant message, carried on
    (saved,) = [p for p in resumed["parts"] if p["type"] == "dynamic-tool"]
    assert saved["state"] == "output-available"
    assert saved["output"]["text"] == "from useChat"
    assert seen["status"] == "ready"
    assert seen["error"] is None
    assert seen["finished"][-1]["isAbort"] is True
    stopped_run = seen["stopped"]["metadata"]["runId"]
    assert thread_events(base, "use-chat", stopped_run)[-1]["payload"]["status"] == "cancelled"


PNG_URL = "data:image/png;base64," + base64.b64encode(demo_png()).decode()


def test_a_file_part_reaches_the_model_and_the_answers_image_is_a_file_chunk(base: str) -> None:
    message = {
        "id": "u1",
        "role": "user",
        "parts": [
            {"type": "text", "text": "What is this?\n/image"},
            {"type": "file", "mediaType": "image/png", "url": PNG_URL, "filename": "in.png"},
        ],
    }
    chunks = post(base, "files", message)

    text = "".join(c["delta"] for c in chunks if isinstance(c, dict) and c["type"] == "text-delta")
    assert text == 'You said: "What is this?" and attached: an image (image/png, 74 bytes)'
    (made,) = [c for c in chunks if isinstance(c, dict) and c["type"] == "file"]
    assert made == {
        "type": "file",
        "url": PNG_URL,
        "mediaType": "image/png",
        "filename": "demo.png",
    }


def test_a_file_part_of_a_type_no_model_takes_is_422_naming_it(base: str) -> None:
    message = {
        "id": "u1",
        "role": "user",
        "parts": [
            {
                "type": "file",
                "mediaType": "application/x-msdownload",
                "url": "data:application/x-msdownload;base64,TVo=",
            }
        ],
    }
    body = {"id": "bad-file", "messages": [message], "trigger": "submit-message"}
    response = httpx.post(f"{base}/ai-sdk/assistant", json=body, timeout=60)
    assert response.status_code == 422
    assert response.json()["error"]["fields"][0]["field"] == "body.messages.0.parts.0.mime_type"


def test_the_ai_packages_chat_sends_a_file_and_shows_the_answers_image(base: str) -> None:
    seen = node_script("ai_sdk_files.mjs", base, "use-chat-files", PNG_URL)

    assert seen["error"] is None
    sent, answer = seen["messages"]
    assert [p["type"] for p in sent["parts"]] == ["file", "text"]
    files = [p for p in answer["parts"] if p["type"] == "file"]
    assert files == [{"type": "file", "mediaType": "image/png", "url": PNG_URL}]
