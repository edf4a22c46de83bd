"""Catalog middleware served over HTTP: PII never reaches an SSE client, even split across
deltas, and an approval policy asks with a confirmation-request that /v1/confirm answers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse, running_app
from pydantic_ai import messages as pai
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from runyard.testing import call, scripted_model, text

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

PIECES = ("Write to ali", "ce@exam", "ple.com or call +1 555 ", "123 4567, please.")


def pieces_model(*pieces: str) -> FunctionModel:
    """Streams exactly ``pieces``: the e-mail address is split across two deltas."""

    async def respond(_: list[pai.ModelMessage], __: AgentInfo) -> pai.ModelResponse:
        return pai.ModelResponse(parts=[pai.TextPart("".join(pieces))])

    async def stream(_: list[pai.ModelMessage], __: AgentInfo) -> AsyncIterator[str]:
        for piece in pieces:
            yield piece

    return FunctionModel(respond, stream_function=stream)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runyard.db'}"


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "agents.yaml").write_text(AGENTS)
    return directory


@asynccontextmanager
async def serving(url: str, catalog: Path, models: dict[str, Model]) -> AsyncIterator[FastAPI]:
    """The catalog served; the agent ``models`` leaves out gets a model with no turns."""
    every = {REDACTING_MODEL: scripted_model([]), POLICY_MODEL: scripted_model([]), **models}
    settings = {"catalog_dir": str(catalog), "instance_id": "middleware-server"}
    async with running_app(url, settings=settings, model_for=every.__getitem__) as app:
        yield app


async def events_until(app: FastAPI, thread: str, event: str) -> list[dict[str, Any]]:
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        frames = await stream.until(event)
    return [f.data for f in frames if f.data is not None]


async def test_an_sse_client_never_sees_the_raw_email_and_the_stored_answer_matches(
    url: str, catalog: Path
) -> None:
    models: dict[str, Model] = {REDACTING_MODEL: pieces_model(*PIECES)}
    async with serving(url, catalog, models) as app:
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
    assert streamed == "Write to [EMAIL] or call [PHONE], please."
    wire = json.dumps(events) + json.dumps(history)
    for raw in ("ali", "@exam", "example.com", "555"):
        assert raw not in wire.replace("[EMAIL]", "")
    assert "Write to [EMAIL] or call [PHONE], please." in json.dumps(history)


async def test_a_policy_call_waits_for_confirmation_and_runs_once_approved(
    url: str, catalog: Path
) -> None:
    model = scripted_model([call("calculator", {"expression": "9*9"}), text("It is 81.")])
    async with serving(url, catalog, {POLICY_MODEL: model}) as app:
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
    async with serving(url, catalog, {POLICY_MODEL: model}) as app:
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
