"""``client_files``: an agent asks the client driving its thread for a file on the client's
machine. The run logs ``filesystem-request`` (never a ``confirmation-request``: no person is
asked), waits suspended, and goes on with what the client answers on ``/v1/confirm``; a refusal
is the call's tool error. The demo model calls the tool (``/tool client_files {...}``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse, running_app

AGENT = """\
kind: agent
id: reader
model: runyard:demo
instructions: Read what the user asks for.
tools: [client_files]
---
kind: routing
default_agent: reader
"""

READ = '/tool client_files {"operation": "read_file", "path": "notes/todo.md"}'


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "reader.yaml").write_text(AGENT)
    return directory


async def events_until(app: FastAPI, thread: str, event: str) -> list[dict[str, Any]]:
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        frames = await stream.until(event)
    return [f.data for f in frames if f.data is not None]


async def asked_and_answered(
    url: str, catalog: Path, answer: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The events up to the filesystem request, and the run's events once ``answer`` went back."""
    async with running_app(url, settings={"catalog_dir": str(catalog)}) as app:
        async with asgi_client(app) as client:
            started = await client.post("/v1/chat/t1", json={"message": READ})
            assert started.status_code == 200, started.text
            asked = await events_until(app, "t1", "filesystem-request")
            request_id = asked[-1]["payload"]["requestId"]
            answered = await client.post(f"/v1/confirm/{request_id}", json=answer)
            assert answered.status_code == 200, answered.text
        return asked, await events_until(app, "t1", "run-finish")


async def test_the_client_is_asked_for_the_file_and_the_call_goes_on_with_its_answer(
    any_backend_url: str, catalog: Path
) -> None:
    asked, done = await asked_and_answered(
        any_backend_url, catalog, {"approved": True, "content": "buy milk"}
    )

    request = asked[-1]["payload"]
    assert (request["operation"], request["args"]) == ("read_file", {"path": "notes/todo.md"})
    assert "confirmation-request" not in [e["type"] for e in done]
    (result,) = [e for e in done if e["type"] == "tool-result"]
    assert result["payload"]["result"] == {"content": "buy milk"}
    assert done[-1]["payload"]["status"] == "completed"


async def test_a_client_that_refuses_fails_the_call_with_its_reason(
    any_backend_url: str, catalog: Path
) -> None:
    _, done = await asked_and_answered(
        any_backend_url, catalog, {"approved": False, "reason": "not shared"}
    )

    (failed,) = [e for e in done if e["type"] == "tool-error"]
    assert "not shared" in failed["payload"]["error"]
    assert "read file" in json.dumps(failed)


async def test_a_face_says_the_run_waits_for_its_client_not_for_an_approval(
    any_backend_url: str, catalog: Path
) -> None:
    settings = {"catalog_dir": str(catalog)}
    async with running_app(any_backend_url, settings=settings) as app, asgi_client(app) as client:
        answered = await client.post(
            "/openai/v1/chat/completions",
            json={"model": "reader", "messages": [{"role": "user", "content": READ}]},
        )
    assert answered.status_code == 200, answered.text
    body = answered.json()
    assert body["x_runyard"]["status"] == "awaiting_client"
    assert "approvals" not in body["x_runyard"]
    assert "filesystem-request" in body["choices"][0]["message"]["content"]
