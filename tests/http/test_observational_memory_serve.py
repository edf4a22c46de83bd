"""``runyard serve``'s settings turn observational memory on: a long tool-heavy session through
the HTTP app (the default ``assistant``, as ``create_app`` builds it) crosses the threshold many
times, and every model request starts from a raw block under it; and a real ``runyard serve``
process observes with the model ``RUNYARD_OBSERVER_MODEL`` names."""

from __future__ import annotations

import asyncio
import importlib
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_harness import ALICE_OWNER, FrameParser, asgi_client, free_port, running_app, settled
from pydantic_ai import messages as pai
from server_process import client_for, server, stop

from local_openai_server import local_openai_server
from runyard.memory import Memory
from runyard.memory.observational import count_tokens
from runyard.messages import AgentMessage
from runyard.models import estimate_tokens, from_model_messages
from runyard.service import DEFAULT_AGENT
from runyard.storage import open_store
from runyard.testing import ScriptedModel, Turn, call, scripted_model, text

pytestmark = pytest.mark.slow

THRESHOLD = 12_000
REFLECT_AT = 200  # small, so the reflector runs too
TURNS = 40
STEPS = 3  # plan calls per turn, each carrying ~12 long tasks in and out


def _tasks(turn: str, step: int) -> list[dict[str, str]]:
    return [
        {
            "id": f"{step}.{n}",
            "description": f"{turn}: step {step} task {n}, sync the records of shard {n} "
            f"to the warehouse and check the row counts match",
            "status": "completed" if n < step else "pending",
        }
        for n in range(12)
    ]


def _respond(messages: list[pai.ModelMessage]) -> Turn:
    """The assistant in a tool-heavy loop, and a deterministic observer and reflector."""
    said = from_model_messages(messages)
    prompt = said[-1].text if said[-1].role == "user" else ""
    if "Observation log:" in prompt:
        return text("Date: 2026-01-01\n* CRITICAL (09:00) the user syncs shards in batches")
    if prompt.startswith("Current time:"):
        asked = re.findall(r"^\[\S+ (\d\d:\d\d)\] user: (.*)$", prompt, re.MULTILINE)
        return text("\n".join(f"* IMPORTANT ({at}) user asked: {body}" for at, body in asked))
    users = [i for i, m in enumerate(said) if m.role == "user"]
    request = said[users[-1]].text
    done = sum(len(m.tool_results) for m in said[users[-1] :])
    if done < STEPS:
        return call("plan", {"goal": request, "tasks": _tasks(request, done)})
    return text(f"{request}: all {STEPS} steps are done.")


def _agent_requests(model: ScriptedModel) -> list[list[pai.ModelMessage]]:
    """The requests the assistant made (not the observer's nor the reflector's)."""
    return [
        request
        for request in model.requests
        if not from_model_messages(request)[-1].text.startswith("Current time:")
    ]


def _instructions(request: list[pai.ModelMessage]) -> str:
    found = [m.instructions for m in request if isinstance(m, pai.ModelRequest) and m.instructions]
    return found[-1] if found else ""


def _raw_history(request: list[pai.ModelMessage]) -> int:
    """Tokens of the stored messages a run's first request carries before its new input."""
    messages = from_model_messages(request)
    return count_tokens([m for m in messages[:-1] if isinstance(m, AgentMessage)])


async def test_a_long_tool_heavy_session_keeps_every_request_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = scripted_model([_respond] * 1_000, model_name="session")
    # The package re-exports the function under the module's name: patch the module itself.
    building = importlib.import_module("runyard.service.catalog.default_agent")
    monkeypatch.setattr(building, "choose_model", lambda _settings: model)
    settings: dict[str, Any] = {
        "observational_memory": True,
        "observer_message_tokens": THRESHOLD,
        "reflector_observation_tokens": REFLECT_AT,
    }
    url = f"sqlite:///{tmp_path / 'runyard.db'}"
    async with running_app(url, settings=settings) as app, asgi_client(app) as client:
        for i in range(TURNS):
            response = await client.post("/v1/chat/long", json={"message": f"Sync batch {i}"})
            assert response.status_code == 200
            await settled(app, "long")
        memory = app.state.runyard.parts.agents.agents[DEFAULT_AGENT].memory
        assert isinstance(memory, Memory)
        assert memory.observational is not None
        await memory.wait_idle()
        key, owner = ALICE_OWNER.thread_key("long"), {"tenant_id": "acme", "resource_id": "alice"}
        observations = await memory.store.list_observations(key, **owner)
        session = count_tokens(await memory.store.get_messages(key, **owner))

    requests = _agent_requests(model)
    firsts = [r for r in requests if from_model_messages(r)[-1].role == "user"]
    assert len(firsts) == TURNS
    assert session > 10 * THRESHOLD
    raw = [_raw_history(r) for r in firsts]
    assert max(raw) <= THRESHOLD
    assert min(raw[1:]) > 0  # the latest exchange always stays raw
    assert raw.index(max(raw)) < TURNS // 4  # crossed early, and many times after
    assert observations
    block = [estimate_tokens(_instructions(r)) for r in firsts]
    assert block[-1] < max(block)  # the reflector condensed the observation block
    # Within a run its own tool calls come on top: each request stays under the raw block, the
    # observation block (condensed past the reflector's threshold) and one turn's messages.
    turn = max(count_tokens(from_model_messages(r)) for r in requests[: STEPS + 1])
    for request in requests:
        sent = count_tokens(from_model_messages(request)) + estimate_tokens(_instructions(request))
        assert sent <= THRESHOLD + REFLECT_AT + turn


def _observer_answer(body: dict[str, Any]) -> str:
    """The observer behind a real endpoint: one line per user message of the transcript."""
    prompt = body["messages"][-1]["content"]
    asked = re.findall(r"^\[\S+ (\d\d:\d\d)\] user: (.*)$", prompt, re.MULTILINE)
    return "\n".join(f"* IMPORTANT ({at}) user asked: {said[:40]}" for at, said in asked)


async def _finished(client: httpx.AsyncClient, thread: str, runs: int) -> None:
    """Wait until the thread's event stream has shown ``runs`` run-finish events."""
    parser, seen = FrameParser(), 0
    async with asyncio.timeout(30), client.stream("GET", f"/v1/events/{thread}") as response:
        async for chunk in response.aiter_bytes():
            for frame in parser.feed(chunk):
                if frame.data is not None and frame.data["type"] == "run-finish":
                    seen += 1
                    if seen == runs:
                        return


async def test_runyard_serve_as_a_process_observes_with_the_model_its_settings_name(
    tmp_path: Path,
) -> None:
    db, port = tmp_path / "runyard.db", free_port()
    message = '/tool calculator {"expression": "6*7"}\n' * 3 + "context: " + "detail " * 60
    async with local_openai_server() as observer:
        observer.answer = _observer_answer
        environment = {
            "RUNYARD_OBSERVATIONAL_MEMORY": "true",
            "RUNYARD_OBSERVER_MODEL": "openai-compatible:observer",
            "RUNYARD_OBSERVER_MESSAGE_TOKENS": "400",
            "RUNYARD_OPENAI_BASE_URL": observer.base_url,
        }
        with server(f"sqlite:///{db}", port, **environment) as process:
            async with client_for(port) as client:
                for turn in range(1, 7):
                    response = await client.post("/v1/chat/t1", json={"message": message})
                    assert response.status_code == 200
                    await _finished(client, "t1", turn)
            assert await stop(process) == 0

    store = await open_store(f"sqlite:///{db}")
    try:
        owner = {"tenant_id": "acme", "resource_id": "alice"}
        observations = await store.list_observations(ALICE_OWNER.thread_key("t1"), **owner)
        cursor = await store.get_observation_cursor(ALICE_OWNER.thread_key("t1"), **owner)
    finally:
        await store.close()
    assert observer.paths
    assert all(body["model"] == "observer" for body in observer.bodies)
    assert observations
    assert cursor is not None
