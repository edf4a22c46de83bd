"""LangGraph agents through every streaming face, each driven by its own client (the catalog:
``langgraph_catalog``): the ``runtime: langchain`` agent streams text, runs a tool and asks for
an approval; the custom ``graph:`` streams a LangChain model's text, writes a status line and
hands a subgraph's answer — text and an image — back to the top. The ``openai`` package, AG-UI's
``HttpAgent`` and event types, the ``ai`` package's chat and the ``mcp`` client see what they
see for a runyard agent; the thread's ``/v1`` log has the same runs.

The LangChain agent is called ``assistant`` so the Node clients under ``node/`` drive it as
they drive runyard's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from ag_ui.core import EventType
from agui_http_agent import EVENT, check_http_agent_session
from faces_server import data_frames, node_script, serving, thread_events
from mcp.types import ImageContent, TextContent
from mcp_client import approving, connected, text

from langgraph_catalog import ANSWER, PNG, write_langgraph_catalog

CALC = '/tool calculator {"expression": "2+3*4"}'
NOTE = '/tool save_note {"text": "milk"}'


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("langgraph")
    with serving(tmp, catalog_dir=write_langgraph_catalog(tmp / "agents")) as url:
        yield url


@pytest.fixture
def client(base: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=f"{base}/openai/v1", api_key="unused", max_retries=0) as made:
        yield made


def _user(content: str) -> list[Any]:
    return [{"role": "user", "content": content}]


def _extension(model: Any) -> dict[str, Any]:
    found: dict[str, Any] = (model.model_extra or {})["x_runyard"]
    return found


def _kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events if e["type"] not in ("text-delta", "reasoning-delta")]


def _subgraph_events(base: str, thread_id: str, run_id: str) -> list[tuple[str, Any]]:
    """(type, payload) of the run's events of its one sub-agent, deltas joined (a content
    event's ``messageId``, a fresh id, left out)."""
    events = thread_events(base, thread_id, run_id)
    (child,) = {e["agentId"] for e in events if e["type"] == "agent-spawned"}
    seen: list[tuple[str, Any]] = []
    for event in (e for e in events if e["agentId"] == child):
        if event["type"] == "text-delta" and seen and seen[-1][0] == "text":
            seen[-1] = ("text", seen[-1][1] + event["payload"]["text"])
        elif event["type"] == "text-delta":
            seen.append(("text", event["payload"]["text"]))
        else:
            payload = {k: v for k, v in event["payload"].items() if k != "messageId"}
            seen.append((event["type"], payload))
    return seen


READER = [
    ("status", {"message": "Reading sources"}),
    ("text", "Found it."),
    ("content", {"blocks": [{"type": "image", "mime_type": "image/png", "base64": PNG}]}),
    ("agent-completed", {"role": "reader", "result": "Found it."}),
]
"""What the subgraph shows under its own agent."""


def test_openai_streams_a_langchain_agents_tool_call_and_answers_its_approval(
    client: openai.OpenAI, base: str
) -> None:
    chunks = list(
        client.chat.completions.create(
            model="assistant",
            messages=_user(CALC),
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    said = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "14" in said
    usage = chunks[-1].usage
    assert usage is not None
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens > 0

    waiting = client.chat.completions.create(
        model="assistant", messages=_user(NOTE), user="lc-approve"
    )
    (approval,) = _extension(waiting)["approvals"]
    assert (approval["toolName"], approval["args"]) == ("save_note", {"text": "milk"})
    answer = {"requestId": approval["requestId"], "approved": True}
    answered = client.chat.completions.create(
        model="assistant",
        messages=_user("(approving)"),
        user="lc-approve",
        extra_body={"x_runyard": {"answers": [answer]}},
    )

    done = _extension(answered)
    assert done["status"] == "completed"
    logged = thread_events(base, "lc-approve", done["runId"])
    assert _kinds(logged) == [
        "run-start",
        "tool-call",
        "confirmation-request",
        "tool-result",
        "run-finish",
    ]
    assert logged[-1]["payload"]["usage"]["totalTokens"] > 0


def test_a_langchain_agents_run_finish_counts_usage_and_cost_as_runyards_loop_does(
    client: openai.OpenAI, base: str
) -> None:
    finishes = []
    for agent in ("assistant", "plain"):
        done = _extension(client.chat.completions.create(model=agent, messages=_user(CALC)))
        finishes.append(thread_events(base, done["threadId"], done["runId"])[-1]["payload"])

    langchain, runyard = finishes
    assert langchain == runyard  # the same model calls, counted and priced the same
    assert langchain["usage"]["totalTokens"] > 0
    assert langchain["usage"]["cost"] == 0  # the demo model's price
    assert langchain["usage"]["models"] == ["runyard:demo"]


def test_openai_streams_a_custom_graphs_answer_and_its_image(
    client: openai.OpenAI, base: str
) -> None:
    stream = client.chat.completions.create(
        model="researcher",
        messages=_user("the capital"),
        stream=True,
        extra_headers={"X-Runyard-Thread": "lg-openai"},
    )
    chunks = list(stream)
    deltas = [c.choices[0].delta for c in chunks if c.choices]

    assert "".join(d.content or "" for d in deltas) == ANSWER
    assert len([d for d in deltas if d.content]) > 2  # the model's tokens, as they came
    (images,) = [
        (d.model_extra or {})["images"] for d in deltas if "images" in (d.model_extra or {})
    ]
    assert images == [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}]
    run_id = _extension(chunks[-1])["runId"]
    assert _subgraph_events(base, "lg-openai", run_id)[1:] == READER


def test_agui_http_agent_runs_a_langchain_agents_tool_an_approval_and_an_abort(
    base: str,
) -> None:
    check_http_agent_session(base, "lg-http-agent")


def test_agui_shows_a_subgraph_as_a_step_with_its_status_and_image(base: str) -> None:
    body = {
        "threadId": "lg-agui",
        "runId": "client-run",
        "messages": [{"id": "m1", "role": "user", "content": "the capital"}],
    }
    response = httpx.post(f"{base}/agui/researcher", json=body, timeout=60)
    assert response.status_code == 200, response.text
    events = [EVENT.validate_python(frame) for frame in data_frames(response)]

    messages: dict[str, str] = {}
    for event in events:
        if event.type == EventType.TEXT_MESSAGE_CONTENT:
            messages[event.message_id] = messages.get(event.message_id, "") + event.delta
    # The parent's answer, the subgraph's inside its step, and the part it handed back.
    assert list(messages.values()) == ["Looking into the capital. ", "Found it.", "Found it."]
    started = next(e for e in events if e.type == EventType.STEP_STARTED)
    finished = next(e for e in events if e.type == EventType.STEP_FINISHED)
    step = events[events.index(started) : events.index(finished)]
    assert [e.delta for e in step if e.type == EventType.TEXT_MESSAGE_CONTENT] == ["Found it."]
    assert started.step_name.startswith("reader (reader:")
    assert finished.step_name == started.step_name
    custom = [(e.name, e.value) for e in events if e.type == EventType.CUSTOM]
    assert ("runyard.status", {"message": "Reading sources"}) in [
        (name, value) for name, value in custom if name == "runyard.status"
    ]
    images = [v for name, v in custom if name == "runyard.content"]
    assert {"type": "image", "mime_type": "image/png", "base64": PNG} in images[-1]["blocks"]
    assert events[-1].type == EventType.RUN_FINISHED


def test_the_ai_sdk_chat_runs_a_langchain_agents_tool_an_approval_and_a_stop(base: str) -> None:
    seen = node_script("ai_sdk_chat.mjs", base, "lg-use-chat")

    (call,) = [p for p in seen["tool"]["parts"] if p["type"] == "dynamic-tool"]
    assert (call["toolName"], call["state"], call["output"]) == (
        "calculator",
        "output-available",
        {"result": 14},
    )
    assert "14" in next(p["text"] for p in seen["tool"]["parts"] if p["type"] == "text")
    assert seen["tool"]["metadata"]["usage"]["totalTokens"] > 0
    (waiting,) = [p for p in seen["asked"]["parts"] if p["type"] == "dynamic-tool"]
    assert waiting["state"] == "approval-requested"
    (saved,) = [p for p in seen["resumed"]["parts"] if p["type"] == "dynamic-tool"]
    assert saved["state"] == "output-available"
    assert saved["output"]["text"] == "from useChat"
    assert seen["error"] is None
    assert seen["finished"][-1]["isAbort"] is True
    stopped_run = seen["stopped"]["metadata"]["runId"]
    assert thread_events(base, "lg-use-chat", stopped_run)[-1]["payload"]["status"] == "cancelled"


def test_the_ai_sdk_stream_gives_a_custom_graphs_text_and_image(base: str) -> None:
    message = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "the capital"}]}
    body = {"id": "lg-ai-sdk", "messages": [message], "trigger": "submit-message"}
    response = httpx.post(f"{base}/ai-sdk/researcher", json=body, timeout=60)
    assert response.status_code == 200, response.text
    chunks = [c for c in data_frames(response) if c != "[DONE]"]

    said = "".join(c["delta"] for c in chunks if c["type"] == "text-delta")
    assert said == ANSWER
    (image,) = [c for c in chunks if c["type"] == "file"]
    assert image == {
        "type": "file",
        "mediaType": "image/png",
        "url": f"data:image/png;base64,{PNG}",
    }
    assert chunks[-1]["type"] == "finish"


async def test_mcp_calls_a_langchain_agent_with_a_tool_and_an_elicited_approval(
    base: str,
) -> None:
    asked: list[str] = []
    async with connected(base, elicitation_callback=approving("accept", asked)) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        calculated = await client.call_tool("assistant", {"message": CALC})
        approved = await client.call_tool("assistant", {"message": NOTE})

    assert names == {"assistant", "researcher", "plain"}
    assert not calculated.is_error, text(calculated)
    assert "14" in text(calculated)
    assert not approved.is_error, text(approved)
    (question,) = asked
    assert "Tool: save_note" in question
    about = approved.structured_content or {}
    assert about["status"] == "completed"
    logged = thread_events(base, about["threadId"], about["runId"])
    assert "tool-result" in _kinds(logged)


async def test_mcp_gives_a_custom_graphs_answer_and_image_as_content(base: str) -> None:
    notes: list[str] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        notes.append(message or "")

    async with connected(base) as client:
        result = await client.call_tool(
            "researcher", {"message": "the capital"}, progress_callback=progress
        )

    assert not result.is_error, text(result)
    said, image = result.content
    assert isinstance(said, TextContent)
    assert said.text == "Looking into the capital. \n\nFound it."  # the answers, one each
    assert image == ImageContent(data=PNG, mime_type="image/png")
    assert any("reader" in note for note in notes)
