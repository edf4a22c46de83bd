"""The OpenAI-compatible face (``/openai/v1``) on a real server, through the official ``openai``
client, sync and async, streamed and not: a tool that runs on the server, reasoning, usage,
the request's earlier messages as the conversation, named threads, approvals (answered through
``extra_body`` and through ``/v1/confirm``), a client that goes away (the run is cancelled),
``agent@version``, the model list, failed runs, and OpenAI's error envelope. The same runs are on the
thread's ``/v1`` event log."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from faces_server import serving, thread_events
from pydantic_ai import messages as pai

from runyard.models.demo_script import demo_png
from runyard.testing import ScriptedModel, scripted_model, text

CATALOG = """\
kind: agent
id: assistant
model: runyard:demo
instructions: You are runyard's assistant.
tools: [calculator, list_notes, save_note]
---
kind: agent
id: echo
model: openai:echo-test
instructions: You are ECHO.
---
kind: agent
id: limited
model: runyard:demo
instructions: One run a minute.
limits: {requests_per_minute: 1}
---
kind: routing
default_agent: assistant
"""
CALC = '/tool calculator {"expression": "2+3*4"}'
NOTE = '/tool save_note {"text": "milk"}'
SLOW = "/delay 300\n" + " ".join(["slowly"] * 200)


class Served:
    """The server, the echo agent's model (which records what it was sent), and clients."""

    def __init__(self, base: str, echo: ScriptedModel) -> None:
        self.base = base
        self.echo = echo
        self.client = openai.OpenAI(base_url=f"{base}/openai/v1", api_key="unused", max_retries=0)

    def aclient(self) -> openai.AsyncOpenAI:
        """An async client, for one test's event loop."""
        return openai.AsyncOpenAI(
            base_url=f"{self.base}/openai/v1", api_key="unused", max_retries=0
        )


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("openai")
    (tmp / "agents").mkdir()
    (tmp / "agents" / "agents.yaml").write_text(CATALOG)
    echo = scripted_model([text(f"echo {i}") for i in range(20)])

    def model_for(name: str) -> str | ScriptedModel:
        return echo if name == "openai:echo-test" else name

    with serving(tmp, model_for, catalog_dir=str(tmp / "agents")) as url:
        given = Served(url, echo)
        with given.client:
            yield given


def user(content: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": content}]


def extension(model: Any) -> dict[str, Any]:
    """The ``x_runyard`` object an ``openai`` response or chunk carries (an extra field)."""
    extra = model.model_extra or {}
    found: dict[str, Any] = extra["x_runyard"]
    return found


def run_finish(base: str, thread_id: str, run_id: str) -> dict[str, Any]:
    return thread_events(base, thread_id, run_id)[-1]


def test_a_completion_runs_the_agents_tool_on_the_server(served: Served) -> None:
    raw = served.client.chat.completions.with_raw_response.create(
        model="assistant", messages=user(CALC)
    )
    completion = raw.parse()

    choice = completion.choices[0]
    assert completion.object == "chat.completion"
    assert completion.model == "assistant"
    assert choice.finish_reason == "stop"
    assert choice.message.tool_calls is None
    assert "14" in (choice.message.content or "")
    ext = extension(completion)
    assert ext["status"] == "completed"
    assert raw.headers["X-Runyard-Thread"] == ext["threadId"]
    assert raw.headers["X-Runyard-Run"] == ext["runId"]
    assert completion.id == f"chatcmpl-{ext['runId']}"
    usage = completion.usage
    assert usage is not None
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens > 0
    logged = thread_events(served.base, ext["threadId"], ext["runId"])
    assert [e["type"] for e in logged if e["type"] != "text-delta"] == [
        "run-start",
        "tool-call",
        "tool-result",
        "run-finish",
    ]
    assert logged[-1]["payload"]["usage"]["totalTokens"] == usage.total_tokens


def test_a_stream_gives_chunks_with_reasoning_then_text_and_usage_last(served: Served) -> None:
    with served.client.chat.completions.with_streaming_response.create(
        model="assistant",
        messages=user("hello there"),
        stream=True,
        stream_options={"include_usage": True},
    ) as response:
        thread_id = response.headers["X-Runyard-Thread"]
        chunks = list(response.parse())

    deltas = [c.choices[0].delta for c in chunks if c.choices]
    reasoning = "".join(getattr(d, "reasoning_content", None) or "" for d in deltas)
    content = "".join(d.content or "" for d in deltas)
    finish, usage = chunks[-2], chunks[-1]
    assert deltas[0].role == "assistant"
    assert reasoning
    assert "hello there" in content
    first_text = next(i for i, d in enumerate(deltas) if d.content)
    assert all(not getattr(d, "reasoning_content", None) for d in deltas[first_text:])
    assert finish.choices[0].finish_reason == "stop"
    assert extension(finish)["threadId"] == thread_id
    assert usage.choices == []
    assert usage.usage is not None
    assert usage.usage.total_tokens > 0
    assert {c.id for c in chunks} == {f"chatcmpl-{extension(finish)['runId']}"}


def test_a_stream_without_include_usage_has_no_usage_chunk(served: Served) -> None:
    chunks = list(
        served.client.chat.completions.create(model="assistant", messages=user(CALC), stream=True)
    )

    assert all(c.choices for c in chunks)
    assert all(c.usage is None for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert "14" in "".join(c.choices[0].delta.content or "" for c in chunks)


def test_reasoning_is_reasoning_content_of_the_message(served: Served) -> None:
    completion = served.client.chat.completions.create(
        model="assistant", messages=user("think first")
    )

    message = completion.choices[0].message
    assert (message.model_extra or {}).get("reasoning_content")
    assert "think first" in (message.content or "")


async def test_the_async_client_streams_and_answers(served: Served) -> None:
    async with served.aclient() as client:
        completion = await client.chat.completions.create(model="assistant", messages=user(CALC))
        stream = await client.chat.completions.create(
            model="assistant", messages=user(CALC), stream=True
        )
        streamed = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])

    assert completion.choices[0].message.content == streamed
    assert "14" in streamed


def test_earlier_messages_are_the_conversation_of_a_new_thread(served: Served) -> None:
    messages = [
        {"role": "system", "content": "Speak like a pirate."},
        {"role": "user", "content": [{"type": "text", "text": "My name is Ada."}]},
        {"role": "assistant", "content": "Ahoy, Ada."},
        {"role": "user", "content": "What is my name?"},
    ]
    completion = served.client.chat.completions.create(model="echo", messages=messages)  # type: ignore[arg-type]

    sent = served.echo.requests[-1]
    said = [
        (type(part).__name__, part.content)
        for message in sent
        for part in message.parts
        if isinstance(part, pai.SystemPromptPart | pai.UserPromptPart | pai.TextPart)
    ]
    assert ("SystemPromptPart", "Speak like a pirate.") in said
    assert said[-3:] == [
        ("UserPromptPart", "My name is Ada."),
        ("TextPart", "Ahoy, Ada."),
        ("UserPromptPart", "What is my name?"),
    ]
    assert completion.choices[0].message.content.startswith("echo")  # type: ignore[union-attr]
    ext = extension(completion)
    shown = httpx.get(f"{served.base}/v1/threads/{ext['threadId']}/messages").text
    assert "What is my name?" in shown
    assert completion.choices[0].message.content in shown


def test_a_thread_named_by_header_or_user_uses_the_threads_memory(served: Served) -> None:
    first = served.client.chat.completions.create(
        model="echo", messages=user("remember kiwi"), user="fruit"
    )
    second = served.client.chat.completions.create(
        model="echo",
        messages=[*user("ignored earlier message"), *user("what fruit?")],
        extra_headers={"X-Runyard-Thread": "fruit"},
        user="not-this-one",
    )

    assert extension(first)["threadId"] == extension(second)["threadId"] == "fruit"
    prompts = [
        part.content
        for message in served.echo.requests[-1]
        for part in message.parts
        if isinstance(part, pai.UserPromptPart)
    ]
    assert prompts == ["remember kiwi", "what fruit?"]


def test_a_run_the_face_started_names_the_face_in_the_threads_status(served: Served) -> None:
    served.client.chat.completions.create(
        model="assistant", messages=user(NOTE), user="entry-openai"
    )

    status = httpx.get(f"{served.base}/v1/threads/entry-openai/status", timeout=10).json()
    assert status["isSuspended"] is True
    assert status["entry"] == "openai"


def test_an_approval_ends_the_answer_with_x_runyard_then_extra_body_answers_it(
    served: Served,
) -> None:
    waiting = served.client.chat.completions.create(
        model="assistant", messages=user(NOTE), user="notes-approve"
    )

    choice = waiting.choices[0]
    ext = extension(waiting)
    (approval,) = ext["approvals"]
    assert choice.finish_reason == "stop"
    assert choice.message.tool_calls is None
    assert "save_note" in (choice.message.content or "")
    assert approval["requestId"] in (choice.message.content or "")
    assert ext["status"] == "awaiting_approval"
    assert ext["threadId"] == "notes-approve"
    assert approval["toolName"] == "save_note"
    assert approval["args"] == {"text": "milk"}
    assert approval["confirmUrl"] == f"/v1/confirm/{approval['requestId']}"
    assert waiting.usage is None

    answered = served.client.chat.completions.create(
        model="assistant",
        messages=user("(approving)"),
        user="notes-approve",
        extra_body={
            "x_runyard": {"answers": [{"requestId": approval["requestId"], "approved": True}]}
        },
    )

    done = extension(answered)
    assert done["status"] == "completed"
    assert done["runId"] == ext["runId"]
    assert answered.usage is not None
    logged = thread_events(served.base, "notes-approve", ext["runId"])
    assert [e["type"] for e in logged if e["type"] != "text-delta"] == [
        "run-start",
        "tool-call",
        "confirmation-request",
        "tool-result",
        "run-finish",
    ]


def test_a_streamed_approval_is_answered_through_v1_confirm(served: Served) -> None:
    chunks = list(
        served.client.chat.completions.create(
            model="assistant",
            messages=user(NOTE),
            stream=True,
            extra_headers={"X-Runyard-Thread": "notes-confirm"},
        )
    )

    last = chunks[-1]
    ext = extension(last)
    (approval,) = ext["approvals"]
    assert last.choices[0].finish_reason == "stop"
    assert ext["status"] == "awaiting_approval"
    assert all(c.choices[0].delta.tool_calls is None for c in chunks)
    confirmed = httpx.post(
        f"{served.base}{approval['confirmUrl']}", json={"approved": False, "reason": "no milk"}
    )
    assert confirmed.status_code == 200, confirmed.text
    logged = thread_events(served.base, "notes-confirm", ext["runId"])
    assert [e["type"] for e in logged if e["type"] != "text-delta"][-2:] == [
        "tool-error",
        "run-finish",
    ]
    assert logged[-1]["payload"]["status"] == "completed"


def test_a_denial_in_extra_body_streams_the_continued_run(served: Served) -> None:
    waiting = served.client.chat.completions.create(
        model="assistant", messages=user(NOTE), user="notes-deny"
    )
    (approval,) = extension(waiting)["approvals"]
    denial = {"requestId": approval["requestId"], "approved": False, "reason": "no milk"}

    chunks = list(
        served.client.chat.completions.create(
            model="assistant",
            messages=user("(denying)"),
            stream=True,
            stream_options={"include_usage": True},
            extra_headers={"X-Runyard-Thread": "notes-deny"},
            extra_body={"x_runyard": {"answers": [denial]}},
        )
    )

    finish, usage = chunks[-2], chunks[-1]
    assert finish.choices[0].finish_reason == "stop"
    assert extension(finish)["status"] == "completed"
    assert extension(finish)["runId"] == extension(waiting)["runId"]
    assert usage.usage is not None
    logged = thread_events(served.base, "notes-deny", extension(waiting)["runId"])
    error = next(e for e in logged if e["type"] == "tool-error")
    assert "no milk" in error["payload"]["error"]


def test_closing_the_stream_early_cancels_the_run(served: Served) -> None:
    with served.client.chat.completions.with_streaming_response.create(
        model="assistant", messages=user(SLOW), stream=True, user="closed-stream"
    ) as response:
        run_id = response.headers["X-Runyard-Run"]
        for chunk in response.parse():
            # The demo model thinks before it answers: its first words are reasoning.
            if chunk.choices and (chunk.choices[0].delta.model_extra or {}).get(
                "reasoning_content"
            ):
                break

    finish = run_finish(served.base, "closed-stream", run_id)
    assert finish["payload"]["status"] == "cancelled"


def test_a_client_that_leaves_before_the_answer_cancels_the_run(served: Served) -> None:
    body = {"model": "assistant", "messages": user(SLOW), "user": "left-early"}
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{served.base}/openai/v1/chat/completions", json=body, timeout=1.0)

    finish = next_finish(served.base, "left-early", None)
    assert finish["payload"]["status"] == "cancelled"


def next_finish(base: str, thread_id: str, run_id: str | None) -> dict[str, Any]:
    """The thread's first ``run-finish`` (of ``run_id`` when given)."""
    with (
        httpx.Client(base_url=base, timeout=30) as client,
        client.stream("GET", f"/v1/events/{thread_id}?lastEventId=0") as stream,
    ):
        for line in stream.iter_lines():
            if line.startswith("data: "):
                event = json.loads(line[len("data: ") :])
                if event["type"] == "run-finish" and run_id in (None, event["runId"]):
                    return event
    raise AssertionError("no run-finish")


def test_a_failed_run_is_openais_server_error_streamed_or_not(served: Served) -> None:
    with pytest.raises(openai.InternalServerError) as answered:
        served.client.chat.completions.create(model="assistant", messages=user("/fail 400"))
    with pytest.raises(openai.APIError) as streamed:
        list(
            served.client.chat.completions.create(
                model="assistant", messages=user("/fail 400"), stream=True
            )
        )

    assert answered.value.status_code == 502
    error = answered.value.response.json()["error"]
    assert (error["type"], error["code"]) == ("server_error", "run_failed")
    assert streamed.value.code == "run_failed"


def test_models_lists_the_callers_agents_and_a_version_can_be_pinned(served: Served) -> None:
    models = served.client.models.list()

    ids = [m.id for m in models.data]
    assert ids == ["assistant", "echo", "limited"]
    version = extension(models.data[0])["version"]
    pinned = served.client.chat.completions.create(
        model=f"assistant@{version}", messages=user(CALC)
    )
    assert "14" in (pinned.choices[0].message.content or "")
    start = thread_events(served.base, extension(pinned)["threadId"], extension(pinned)["runId"])[0]
    assert start["payload"]["version"] == version

    with pytest.raises(openai.NotFoundError) as unknown_version:
        served.client.chat.completions.create(model=f"assistant@{'0' * 64}", messages=user("hi"))
    assert unknown_version.value.body == {
        "message": unknown_version.value.body["message"],  # type: ignore[index]
        "type": "not_found_error",
        "param": "model",
        "code": "model_not_found",
    }


def test_an_unknown_model_is_a_404_in_openais_envelope(served: Served) -> None:
    with pytest.raises(openai.NotFoundError) as raised:
        served.client.chat.completions.create(model="nobody", messages=user("hi"))

    body = raised.value.response.json()
    assert set(body) == {"error"}
    assert body["error"]["type"] == "not_found_error"
    assert body["error"]["param"] == "model"
    assert body["error"]["code"] == "model_not_found"
    assert "nobody" in body["error"]["message"]
    no_route = httpx.get(f"{served.base}/openai/v1/embeddings")
    assert no_route.status_code == 404
    assert no_route.json()["error"]["type"] == "not_found_error"


def test_a_bad_body_is_a_422_naming_the_field(served: Served) -> None:
    url = f"{served.base}/openai/v1/chat/completions"
    no_messages = httpx.post(url, json={"model": "assistant"})
    assistant_last = httpx.post(
        url, json={"model": "assistant", "messages": [{"role": "assistant", "content": "hi"}]}
    )
    client_tools = httpx.post(
        url, json={"model": "assistant", "messages": user("hi"), "tools": [{"type": "function"}]}
    )

    assert no_messages.status_code == 422
    assert no_messages.json()["error"]["param"] == "messages"
    assert no_messages.json()["error"]["type"] == "invalid_request_error"
    assert assistant_last.json()["error"]["param"] == "messages.0.role"
    assert client_tools.json()["error"]["param"] == "tools"
    bad_thread = httpx.post(
        url,
        json={"model": "assistant", "messages": user("hi")},
        headers={"X-Runyard-Thread": "a b"},
    )
    assert bad_thread.status_code == 422
    assert bad_thread.json()["error"]["param"] == "header.X-Runyard-Thread"
    answers_without_thread = httpx.post(
        url,
        json={
            "model": "assistant",
            "messages": user("hi"),
            "x_runyard": {"answers": [{"requestId": "cr_1", "approved": True}]},
        },
    )
    assert answers_without_thread.json()["error"]["param"] == "x_runyard.answers"
    with pytest.raises(openai.UnprocessableEntityError) as raised:
        served.client.chat.completions.create(model="assistant", messages=user("hi"), n=2)
    assert raised.value.response.json()["error"]["param"] == "n"


def test_a_limit_is_a_429_rate_limit_error_with_retry_after(served: Served) -> None:
    served.client.chat.completions.create(model="limited", messages=user("one"))
    with pytest.raises(openai.RateLimitError) as raised:
        served.client.chat.completions.create(model="limited", messages=user("two"))

    error = raised.value.response.json()["error"]
    assert error["type"] == "rate_limit_error"
    assert error["code"] == "rate_limited"
    assert int(raised.value.response.headers["Retry-After"]) >= 1


def test_v1_keeps_runyards_own_error_body(served: Served) -> None:
    response = httpx.post(f"{served.base}/v1/chat/t", json={})

    assert response.status_code == 422
    assert "fields" in response.json()["error"]


def test_keys_auth_refuses_a_bad_key_with_a_401_envelope(
    tmp_path: Path,
) -> None:
    with serving(tmp_path, auth="keys") as base:
        client = openai.OpenAI(base_url=f"{base}/openai/v1", api_key="ryk_wrong", max_retries=0)
        with client, pytest.raises(openai.AuthenticationError) as raised:
            client.models.list()

    body = raised.value.response.json()
    assert body["error"]["type"] == "authentication_error"
    assert body["error"]["code"] == "unauthenticated"
    assert set(body["error"]) == {"message", "type", "param", "code"}


PNG_URL = "data:image/png;base64," + base64.b64encode(demo_png()).decode()


def test_an_image_url_part_reaches_the_model_and_an_image_comes_back(served: Served) -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?\n/image"},
                {"type": "image_url", "image_url": {"url": PNG_URL, "detail": "low"}},
            ],
        }
    ]
    completion = served.client.chat.completions.create(model="assistant", messages=messages)  # type: ignore[arg-type]

    message = completion.choices[0].message
    assert (
        message.content == 'You said: "What is this?" and attached: an image (image/png, 74 bytes)'
    )
    assert (message.model_extra or {})["images"] == [
        {"type": "image_url", "image_url": {"url": PNG_URL}}
    ]
    ext = extension(completion)
    shown = httpx.get(f"{served.base}/v1/threads/{ext['threadId']}/messages").json()
    user_row = shown["messages"][0]
    assert user_row["content"] == "What is this?\n/image"
    assert user_row["blocks"][0]["extras"] == {"detail": "low"}


def test_a_stream_sends_the_answers_image_and_file_as_deltas(served: Served) -> None:
    audio = base64.b64encode(b"RIFF....WAVE").decode()
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "/image\n/file notes.txt"},
                {"type": "input_audio", "input_audio": {"data": audio, "format": "wav"}},
            ],
        }
    ]
    stream = served.client.chat.completions.create(
        model="assistant",
        messages=messages,
        stream=True,  # type: ignore[arg-type]
    )
    deltas = [chunk.choices[0].delta for chunk in stream if chunk.choices]

    text = "".join(d.content or "" for d in deltas)
    assert text == 'You said: "" and attached: audio (audio/wav, 12 bytes)'
    extras = [d.model_extra or {} for d in deltas]
    (images,) = [e["images"] for e in extras if "images" in e]
    assert images == [{"type": "image_url", "image_url": {"url": PNG_URL}}]
    (others,) = [e["x_runyard_content"] for e in extras if "x_runyard_content" in e]
    assert [(b["type"], b["mime_type"], b["filename"]) for b in others] == [
        ("file", "text/plain", "notes.txt")
    ]


def test_a_content_part_runyard_cannot_take_is_refused_naming_it(served: Served) -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image_url", "image_url": {"url": "data:application/pdf;base64,JVBERg=="}},
                {"type": "hologram"},
            ],
        }
    ]
    with pytest.raises(openai.UnprocessableEntityError) as refused:
        served.client.chat.completions.create(model="assistant", messages=messages)  # type: ignore[arg-type]
    assert "messages.0.content.2.type" in str(refused.value)
    messages[0]["content"].pop()  # type: ignore[attr-defined]
    with pytest.raises(openai.UnprocessableEntityError) as wrong_type:
        served.client.chat.completions.create(model="assistant", messages=messages)  # type: ignore[arg-type]
    assert "messages.0.content.1.mime_type" in str(wrong_type.value)


def test_an_earlier_messages_image_is_kept_in_the_conversation_of_a_new_thread(
    served: Served,
) -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Remember this picture."},
                {"type": "image_url", "image_url": {"url": PNG_URL}},
            ],
        },
        {"role": "assistant", "content": "Remembered."},
        {"role": "user", "content": "What did I show you?"},
    ]
    completion = served.client.chat.completions.create(model="echo", messages=messages)  # type: ignore[arg-type]

    prompts = [
        part.content
        for message in served.echo.requests[-1]
        for part in message.parts
        if isinstance(part, pai.UserPromptPart)
    ]
    assert prompts == [
        ["Remember this picture.", pai.BinaryContent(demo_png(), media_type="image/png")],
        "What did I show you?",
    ]
    ext = extension(completion)
    shown = httpx.get(f"{served.base}/v1/threads/{ext['threadId']}/messages").json()
    assert ext["status"] == "completed"
    assert "What did I show you?" in json.dumps(shown)


def test_an_earlier_messages_bad_image_is_refused_naming_it_and_nothing_is_stored(
    served: Served,
) -> None:
    pdf_as_image = {
        "type": "image_url",
        "image_url": {"url": "data:application/pdf;base64,JVBERg=="},
    }
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}, pdf_as_image]},
        {"role": "user", "content": "and?"},
    ]
    before = httpx.get(f"{served.base}/v1/threads").json()
    with pytest.raises(openai.UnprocessableEntityError) as refused:
        served.client.chat.completions.create(model="echo", messages=messages)  # type: ignore[arg-type]

    assert "messages.0.content.1.mime_type" in str(refused.value)
    assert httpx.get(f"{served.base}/v1/threads").json() == before
