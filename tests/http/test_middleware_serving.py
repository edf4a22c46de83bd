"""Catalog middleware served over HTTP: PII never reaches an SSE client, even split across
deltas, and an approval policy asks with a confirmation-request that /v1/confirm answers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from catalog_harness import serving
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse, running_app
from pydantic_ai import messages as pai
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.runtime.title import TITLE_INSTRUCTIONS
from runyard.testing import call, scripted_model, text
from sqlite_databases import MigratedSqlite
from streamed_pieces import pieces_model

REDACTING_MODEL = "openai:gpt-4o-mini"
POLICY_MODEL = "anthropic:claude-sonnet-4-5"

AGENTS = f"""\
kind: agent
id: support
model: {REDACTING_MODEL}
instructions: Answer.
middleware:
  - {{name: pii_redaction, parameters: {{hold_chars: 16}}}}
---
kind: agent
id: calc
model: {POLICY_MODEL}
instructions: Compute.
tools: [calculator]
middleware:
  - name: approval_policy
    parameters:
      tool: "calc*"
      when: {{field: expression, regex: "9"}}
---
kind: routing
default_agent: support
"""

PIECES = (
    "Write to ali",
    "ce@exam",
    "ple.com or call +1 555 ",
    "123 4567, please.",
    " We answer every message within a day or two, weekends included.",
)
ANSWER = (
    "Write to [EMAIL] or call [PHONE], please."
    " We answer every message within a day or two, weekends included."
)


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "agents.yaml").write_text(AGENTS)
    return directory


def every(models: dict[str, Model]) -> dict[str, Model]:
    """``models``, and a model with no turns for each agent it leaves out."""
    return {REDACTING_MODEL: scripted_model([]), POLICY_MODEL: scripted_model([]), **models}


async def events_until(app: FastAPI, thread: str, event: str) -> list[dict[str, Any]]:
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        frames = await stream.until(event)
    return [f.data for f in frames if f.data is not None]


async def test_an_sse_client_never_sees_the_raw_email_and_the_stored_answer_matches(
    url: str, catalog: Path
) -> None:
    models: dict[str, Model] = {REDACTING_MODEL: pieces_model(*PIECES)}
    async with serving(url, catalog, every(models)) as app:
        async with asgi_client(app) as client:
            started = await client.post("/v1/chat/t1", json={"message": "How do I reach you?"})
            assert started.status_code == 200, started.text
        events = await events_until(app, "t1", "run-finish")
        async with asgi_client(app) as client:
            history = (await client.get("/v1/threads/t1/messages")).json()

    assert started.status_code == 200, started.text
    deltas = [e["payload"]["text"] for e in events if e["type"] == "text-delta"]
    streamed = "".join(deltas)
    assert len(deltas) > 1  # held back only as long as a match could still grow
    assert streamed == ANSWER
    wire = json.dumps(events) + json.dumps(history)
    # The phone's pieces with their spaces: a bare "555" turns up in millisecond timestamps.
    for raw in ("ali", "@exam", "example.com", "+1 555", "123 4567"):
        assert raw not in wire.replace("[EMAIL]", "")
    assert ANSWER in json.dumps(history)


OPENER = "Please refund the order john.doe@example.com placed yesterday"


def echoing_title_model(read: list[str]) -> FunctionModel:
    """Streams a plain answer; asked for a title (not streamed), it keeps what it read in
    ``read`` and answers with it, so an address it was given would come back in the title."""

    async def respond(messages: list[pai.ModelMessage], info: AgentInfo) -> pai.ModelResponse:
        assert info.instructions == TITLE_INSTRUCTIONS
        read.append(repr(messages))
        asked = messages[-1].parts[-1]
        assert isinstance(asked, pai.UserPromptPart)
        return pai.ModelResponse(parts=[pai.TextPart(str(asked.content))])

    async def stream(_: list[pai.ModelMessage], __: AgentInfo) -> AsyncIterator[str]:
        yield "Refund on its way."

    return FunctionModel(respond, stream_function=stream)


async def test_the_title_model_never_reads_the_raw_address_and_the_title_never_holds_it(
    url: str, catalog: Path
) -> None:
    read: list[str] = []
    chosen = every({REDACTING_MODEL: echoing_title_model(read)})
    settings = {"catalog_dir": str(catalog), "instance_id": "catalog-server"}
    async with running_app(
        url, settings=settings, model_for=chosen.__getitem__, titles=True
    ) as app:
        async with asgi_client(app) as client:
            started = await client.post("/v1/chat/t1", json={"message": OPENER})
            assert started.status_code == 200, started.text
        events = await events_until(app, "t1", "run-finish")
        async with asgi_client(app) as client:
            history = (await client.get("/v1/threads/t1/messages")).json()
            listed = (await client.get("/v1/threads")).json()

    redacted = "Please refund the order [EMAIL] placed yesterday"
    assert len(read) == 1
    assert redacted in read[0]
    assert "john.doe" not in read[0]
    titled = [e["payload"]["title"] for e in events if e["type"] == "thread-title-updated"]
    assert titled == [redacted]
    assert history["title"] == redacted
    assert [t["title"] for t in listed["threads"]] == [redacted]
    # The user's own message is theirs and stays as written; nothing else holds the address.
    assert [m["content"] for m in history["messages"] if m["role"] == "user"] == [OPENER]
    assert "john.doe" not in json.dumps(events).replace(json.dumps(OPENER)[1:-1], "")


async def test_a_policy_call_waits_for_confirmation_and_runs_once_approved(
    url: str, catalog: Path
) -> None:
    model = scripted_model([call("calculator", {"expression": "9*9"}), text("It is 81.")])
    async with serving(url, catalog, every({POLICY_MODEL: model})) as app:
        async with asgi_client(app) as client:
            started = await client.post("/v1/chat/t1", json={"message": "9*9?", "agentId": "calc"})
            assert started.status_code == 200, started.text
        asked = (await events_until(app, "t1", "confirmation-request"))[-1]["payload"]
        async with asgi_client(app) as client:
            answered = await client.post(
                f"/v1/confirm/{asked['requestId']}", json={"approved": True}
            )
        events = await events_until(app, "t1", "run-finish")

    assert asked["toolName"] == "calculator"
    assert asked["args"] == {"expression": "9*9"}
    assert asked["message"] == 'Allow "calculator" to run?'
    assert answered.status_code == 200
    results = [e["payload"] for e in events if e["type"] == "tool-result"]
    assert results[-1]["result"] == {"result": 81}
    assert events[-1]["payload"]["status"] == "completed"


async def test_a_denied_policy_call_never_runs_and_a_call_outside_the_condition_runs_unasked(
    url: str, catalog: Path
) -> None:
    model = scripted_model(
        [
            call("calculator", {"expression": "9+1"}),
            text("refused"),
            call("calculator", {"expression": "2+3"}),
            text("It is 5."),
        ]
    )
    async with serving(url, catalog, every({POLICY_MODEL: model})) as app:
        async with asgi_client(app) as client:
            started = await client.post("/v1/chat/t1", json={"message": "9+1?", "agentId": "calc"})
            assert started.status_code == 200, started.text
        asked = (await events_until(app, "t1", "confirmation-request"))[-1]["payload"]
        async with asgi_client(app) as client:
            await client.post(f"/v1/confirm/{asked['requestId']}", json={"approved": False})
        denied = await events_until(app, "t1", "run-finish")
        async with asgi_client(app) as client:
            history = (await client.get("/v1/threads/t1/messages")).json()
            after = history["nextEventId"] - 1
            await client.post("/v1/chat/t1", json={"message": "2+3?"})
        async with asgi_sse(app, f"/v1/events/t1?lastEventId={after}") as stream:
            frames = await stream.until("run-finish")
        second = [f.data for f in frames if f.data is not None]

    refused = [e["payload"] for e in denied if e["type"] == "tool-error"]
    assert "denied by the user" in refused[-1]["error"]
    assert all(e["type"] != "confirmation-request" for e in second)
    assert [e["payload"]["result"] for e in second if e["type"] == "tool-result"] == [{"result": 5}]


CANARY = "canary-Zq8uXw3Lp0TtRv"


async def test_a_secret_split_across_deltas_at_any_point_never_reaches_an_sse_client(
    url: str, catalog: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CANARY_API_KEY", CANARY)
    cuts = list(range(1, len(CANARY)))
    streams = [("The key is ", CANARY[:i], CANARY[i:], ", keep it.") for i in cuts]

    async def respond(_: list[pai.ModelMessage], __: AgentInfo) -> pai.ModelResponse:
        raise AssertionError("served runs stream")

    async def stream(_: list[pai.ModelMessage], __: AgentInfo) -> AsyncIterator[str]:
        for piece in streams.pop(0):
            yield piece

    models: dict[str, Model] = {REDACTING_MODEL: FunctionModel(respond, stream_function=stream)}
    async with serving(url, catalog, every(models)) as app:
        for cut in cuts:
            async with asgi_client(app) as client:
                started = await client.post(f"/v1/chat/t{cut}", json={"message": "Key?"})
                assert started.status_code == 200, started.text
            events = await events_until(app, f"t{cut}", "run-finish")

            streamed = "".join(e["payload"]["text"] for e in events if e["type"] == "text-delta")
            assert streamed == "The key is [REDACTED], keep it.", cut
            assert CANARY[: max(cut, 6)] not in json.dumps(events), cut
