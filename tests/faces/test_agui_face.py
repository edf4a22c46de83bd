"""The AG-UI face (``POST /agui/{agentId}``) on a real server: every event it emits is a valid
``ag_ui.core`` event, a tool call, an approval interrupt answered with ``resume``, a client that
goes away (the run is cancelled), bad bodies, and AG-UI's own ``HttpAgent`` driving all of it.
The same runs are on the thread's ``/v1`` event log."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from ag_ui.core import DataSource, EventType, ImagePart, UserMessage
from ag_ui.core import TextPart as UserTextPart
from agui_http_agent import EVENT, check_http_agent_session
from faces_server import PLAN_AND_DELEGATE, data_frames, serving, thread_events

from runyard.models.demo_script import demo_png


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(tmp_path_factory.mktemp("agui")) as url:
        yield url


def run_input(thread_id: str, text: str | None = None, **fields: Any) -> dict[str, Any]:
    messages = [] if text is None else [{"id": "m1", "role": "user", "content": text}]
    return {"threadId": thread_id, "runId": "client-run", "messages": messages, **fields}


def stream(base: str, body: dict[str, Any]) -> list[Any]:
    """Every AG-UI event of one request, each validated with AG-UI's own types."""
    response = httpx.post(f"{base}/agui/assistant", json=body, timeout=60)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/event-stream"
    return [EVENT.validate_python(frame) for frame in data_frames(response)]


def types(events: list[Any]) -> list[str]:
    return [event.type.value for event in events]


def test_a_tool_call_streams_as_valid_agui_events_with_usage(base: str) -> None:
    events = stream(base, run_input("tool", '/tool calculator {"expression": "2+3*4"}'))

    seen = types(events)
    assert seen[:5] == [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
    ]
    assert seen[5] == "TEXT_MESSAGE_START"
    assert set(seen[6:-2]) == {"TEXT_MESSAGE_CONTENT"}
    assert seen[-2:] == ["TEXT_MESSAGE_END", "RUN_FINISHED"]
    started, call, args, _end, result = events[:5]
    assert (started.thread_id, started.run_id) == ("tool", "client-run")
    assert (call.tool_call_name, args.delta) == ("calculator", '{"expression": "2+3*4"}')
    assert result.content == '{"result": 14}'
    text = "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)
    assert "14" in text
    finished = events[-1]
    assert finished.outcome is None  # success
    (usage,) = finished.usage
    assert usage.input_tokens > 0
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
    logged = thread_events(base, "tool", started.metadata["runyardRunId"])
    assert [e["type"] for e in logged if e["type"] not in ("text-delta", "reasoning-delta")] == [
        "run-start",
        "tool-call",
        "tool-result",
        "run-finish",
    ]


def test_reasoning_streams_as_a_reasoning_message_before_the_text(base: str) -> None:
    events = stream(base, run_input("reasoning", "hello there"))

    seen = [t for t in types(events) if not t.endswith("_CONTENT")]
    assert seen == [
        "RUN_STARTED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]


def test_a_sub_agent_is_a_step_and_the_task_list_is_state(base: str) -> None:
    events = stream(base, run_input("orchestra", PLAN_AND_DELEGATE))

    shown = [
        e
        for e in events
        if e.type
        in (
            EventType.STATE_SNAPSHOT,
            EventType.STATE_DELTA,
            EventType.STEP_STARTED,
            EventType.STEP_FINISHED,
        )
        or (e.type == EventType.TOOL_CALL_START and e.tool_call_name == "calculator")
    ]
    snapshot, started, call, finished, delta = shown
    assert snapshot.snapshot == {
        "tasks": [{"id": "a", "description": "add", "status": "in_progress"}]
    }
    assert started.step_name.startswith("adder (agent-")
    assert call.tool_call_name == "calculator"
    assert finished.step_name == started.step_name
    assert [op.model_dump() for op in delta.delta] == [
        {
            "op": "replace",
            "path": "/tasks",
            "value": [{"id": "a", "description": "add", "status": "completed"}],
        }
    ]
    assert events[-1].type == EventType.RUN_FINISHED


def test_an_approval_ends_the_run_with_an_interrupt_that_resume_answers(base: str) -> None:
    asked = stream(base, run_input("approval", '/tool save_note {"text": "keep"}'))
    finished = asked[-1]
    assert finished.outcome.type == "interrupt"
    (interrupt,) = finished.outcome.interrupts
    assert interrupt.reason == "tool_approval"
    assert interrupt.tool_call_id == asked[1].tool_call_id
    assert interrupt.metadata["confirmation"]["toolName"] == "save_note"
    assert interrupt.response_schema["required"] == ["approved"]

    resume = [{"interruptId": interrupt.id, "status": "resolved", "payload": {"approved": True}}]
    resumed = stream(base, run_input("approval", resume=resume))

    assert types(resumed)[:2] == ["RUN_STARTED", "TOOL_CALL_RESULT"]
    assert '"text": "keep"' in resumed[1].content
    assert resumed[-1].type == EventType.RUN_FINISHED
    assert resumed[-1].outcome is None
    run_id = asked[0].metadata["runyardRunId"]
    assert resumed[0].metadata["runyardRunId"] == run_id
    logged = thread_events(base, "approval", run_id)
    assert [e["type"] for e in logged if e["type"] != "text-delta"] == [
        "run-start",
        "tool-call",
        "confirmation-request",
        "tool-result",
        "run-finish",
    ]


def test_a_cancelled_interrupt_denies_the_tool(base: str) -> None:
    asked = stream(base, run_input("denied", '/tool save_note {"text": "no"}'))
    (interrupt,) = asked[-1].outcome.interrupts

    resume = [{"interruptId": interrupt.id, "status": "cancelled"}]
    resumed = stream(base, run_input("denied", resume=resume))

    result = resumed[1]
    assert result.type == EventType.TOOL_CALL_RESULT
    assert result.metadata == {"error": True}
    assert resumed[-1].type == EventType.RUN_FINISHED


def test_a_client_that_goes_away_cancels_the_run(base: str) -> None:
    body = run_input("gone", "/delay 100\nplease answer slowly, word by word, for a while")
    with (
        httpx.Client(timeout=60) as client,
        client.stream("POST", f"{base}/agui/assistant", json=body) as response,
    ):
        first = next(response.iter_lines())
    started = EVENT.validate_json(first[len("data: ") :])

    logged = thread_events(base, "gone", started.metadata["runyardRunId"])

    assert logged[-1]["payload"]["status"] == "cancelled"
    assert logged[-1]["payload"]["reason"] == "user_cancelled"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"runId": "r", "messages": []}, "body.threadId"),
        (run_input("bad"), "body.messages"),
        (run_input("bad", "  "), "body.messages.0.content"),
        (
            run_input("bad", resume=[{"interruptId": "cr_x", "status": "resolved"}]),
            "body.resume.0.payload",
        ),
        (run_input("bad id!", "hi"), "body.threadId"),
    ],
)
def test_a_bad_body_is_422_naming_the_field(base: str, body: dict[str, Any], field: str) -> None:
    response = httpx.post(f"{base}/agui/assistant", json=body, timeout=30)

    assert response.status_code == 422
    assert field in [f["field"] for f in response.json()["error"]["fields"]]


def test_an_unknown_agent_or_interrupt_is_404(base: str) -> None:
    unknown_agent = httpx.post(f"{base}/agui/nobody", json=run_input("x", "hi"), timeout=30)
    resume = [{"interruptId": "cr_unknown", "status": "resolved", "payload": True}]
    unknown_interrupt = httpx.post(
        f"{base}/agui/assistant", json=run_input("x", resume=resume), timeout=30
    )

    assert unknown_agent.status_code == 404
    assert unknown_interrupt.status_code == 404


def test_agui_http_agent_runs_a_tool_an_approval_and_an_abort(base: str) -> None:
    check_http_agent_session(base, "http-agent")


def test_an_image_part_reaches_the_model_and_the_answers_image_is_a_custom_event(base: str) -> None:
    png = base64.b64encode(demo_png()).decode()
    content = [
        UserTextPart(text="What is this?\n/image"),
        ImagePart(source=DataSource(value=png, mime_type="image/png")),
    ]
    message = UserMessage(id="m1", content=content).model_dump(
        mode="json", by_alias=True, exclude_none=True
    )
    events = stream(base, run_input("image", messages=[message]))

    text = "".join(e.delta for e in events if e.type == EventType.TEXT_MESSAGE_CONTENT)
    assert text == 'You said: "What is this?" and attached: an image (image/png, 74 bytes)'
    (custom,) = [e for e in events if e.type == EventType.CUSTOM and e.name == "runyard.content"]
    assert custom.value["blocks"] == [
        {"type": "image", "mime_type": "image/png", "base64": png, "filename": "demo.png"}
    ]


def test_a_content_part_runyard_cannot_take_is_422_naming_it(base: str) -> None:
    message = {"id": "m1", "role": "user", "content": [{"type": "hologram"}]}
    response = httpx.post(
        f"{base}/agui/assistant", json=run_input("bad", messages=[message]), timeout=60
    )
    assert response.status_code == 422
    assert response.json()["error"]["fields"][0]["field"] == "body.messages.0.content.0.type"
