"""A catalog served in-process for the HTTP tests: two agents on scripted models (``support``,
``billing``), a routing that sends ``/billing`` pages to billing, a broken file; and helpers to
run a chat and read what its run did."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse, running_app
from pydantic_ai.models import Model

from runyard.testing import ScriptedModel, scripted_model
from runyard.testing.scripted import TurnSource

SUPPORT_MODEL = "openai:gpt-4o-mini"
BILLING_MODEL = "anthropic:claude-sonnet-4-5"

AGENTS = f"""\
kind: agent
id: support
model: {SUPPORT_MODEL}
instructions: You are SUPPORT. Be kind.
tools: [calculator]
---
kind: agent
id: billing
description: Invoices and notes.
model: {BILLING_MODEL}
instructions: You are BILLING. Be exact.
tools: [calculator, save_note]
"""

ROUTING = """\
kind: routing
default_agent: support
rules:
  - id: billing-page
    priority: 10
    when: {field: ui_page, regex: "^/billing"}
    agent: billing
"""

BROKEN = """\
kind: agent
id: broken
model: openai:gpt-4o-mini
colour: blue
"""


def write_catalog(tmp_path: Path) -> Path:
    """The catalog directory: agents.yaml, broken.yaml, routing.yaml."""
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "agents.yaml").write_text(AGENTS)
    (directory / "broken.yaml").write_text(BROKEN)
    (directory / "routing.yaml").write_text(ROUTING)
    return directory


Models = dict[str, ScriptedModel]


def models(support: Sequence[TurnSource] = (), billing: Sequence[TurnSource] = ()) -> Models:
    return {SUPPORT_MODEL: scripted_model(support), BILLING_MODEL: scripted_model(billing)}


@asynccontextmanager
async def serving(
    url: str, catalog: Path, models: Mapping[str, Model] | Model, **settings: Any
) -> AsyncIterator[FastAPI]:
    """The app serving ``catalog`` on ``url``, each model name of the catalog mapped by
    ``models`` (or every name to one model); ``settings`` override the test ``Settings``."""
    chosen = {"catalog_dir": str(catalog), "instance_id": "catalog-server", **settings}
    model_for = models.__getitem__ if isinstance(models, Mapping) else (lambda _: models)
    async with running_app(url, settings=chosen, model_for=model_for) as app:
        yield app


async def run(app: FastAPI, thread: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of the run ``body`` starts (those after the thread's earlier runs)."""
    async with asgi_client(app) as client:
        history = (await client.get(f"/v1/threads/{thread}/messages")).json()
        after = history["nextEventId"] - 1 if "nextEventId" in history else 0
        response = await client.post(f"/v1/chat/{thread}", json=body)
    assert response.status_code == 200, response.text
    async with asgi_sse(app, f"/v1/events/{thread}?lastEventId={after}") as stream:
        frames = await stream.until("run-finish")
    return [f.data for f in frames if f.data is not None]


def run_start(events: list[dict[str, Any]]) -> dict[str, Any]:
    payload: dict[str, Any] = events[0]["payload"]
    assert events[0]["type"] == "run-start"
    return payload


def prompt_of(model: ScriptedModel, request: int = 0) -> str:
    return repr(model.requests[request])


async def versions(app: FastAPI) -> dict[str, str]:
    async with asgi_client(app) as client:
        body = (await client.get("/v1/catalog")).json()
    return {spec["id"]: spec["version"] for spec in body["specs"] if spec["kind"] == "agent"}


async def confirmation(app: FastAPI, thread: str) -> str:
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        frames = await stream.until("confirmation-request")
    assert frames[-1].data is not None
    request_id: str = frames[-1].data["payload"]["requestId"]
    return request_id


async def catalog_body(app: FastAPI) -> dict[str, Any]:
    async with asgi_client(app) as client:
        response = await client.get("/v1/catalog")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def next_generation(app: FastAPI, after: int, within: float = 10) -> dict[str, Any]:
    """``GET /v1/catalog`` once its generation is past ``after`` (a reload changed it); fails
    after ``within`` seconds."""
    async with asyncio.timeout(within):
        while True:
            body = await catalog_body(app)
            if body["generation"] > after:
                return body
            await asyncio.sleep(0.02)
