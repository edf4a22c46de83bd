"""Secrets never leave: a served catalog on PostgreSQL, given canary secrets of every kind, is
driven through every endpoint (failures included) while a tool and a model echo the secrets;
then the captured logs, every response (status line, headers, body, SSE frames) and a dump of
every table are searched for each canary. None may appear, anywhere."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from catalog_harness import catalog_body, next_generation, run, serving
from fastapi import FastAPI
from http_harness import ALICE, free_port, running_app
from pydantic_ai import messages as pai
from pydantic_ai.exceptions import ModelHTTPError

from http_target_server import HttpTarget, http_target
from postgres_databases import truncate_all
from runyard.redaction import REDACTED
from runyard.testing import Turn, call, scripted_model

PROVIDER_KEY = "sk-canaryPROVIDERkey0123456789abcd"
DB_PASSWORD = "CANARYdbPassw0rd"
API_KEY = "ryk_CanaryKeyId0" + "CanaryCanaryCanaryCanaryCanaryCanaryCanary1"
ADMIN_TOKEN = "CANARYadminToken42"
PATTERN_SECRET = "acme-canary-314159"
TOOL_CREDENTIAL = "CANARYtoolCredential7"
URL_PASSWORD = "CANARYurlPassw0rd"

CANARIES = {
    "provider key": PROVIDER_KEY,
    "database password": DB_PASSWORD,
    "API key": API_KEY,
    "admin token": ADMIN_TOKEN,
    "configured pattern": PATTERN_SECRET,
    "tool credential": TOOL_CREDENTIAL,
    "URL password": URL_PASSWORD,
}

CATALOG = f"""\
kind: agent
id: front
model: openai:gpt-4o-mini
instructions: You are FRONT.
tools: [intranet, save_note]
---
kind: tool
id: intranet
factory: http_request
parameters:
  allowed_domains: ["127.0.0.1"]
  headers: {{Authorization: "Token {TOOL_CREDENTIAL}"}}
---
kind: routing
default_agent: front
"""

ECHOED = (
    f"key={PROVIDER_KEY} seen={TOOL_CREDENTIAL} order={PATTERN_SECRET} "
    f"db=postgresql://postgres:{DB_PASSWORD}@10.0.0.9/prod"
)
"""What the remote service answers: every secret it could have seen, back to the tool."""


def _echo_tool_result(messages: list[pai.ModelMessage]) -> Turn:
    """The model repeats the tool's answer to the user, word for word."""
    returns = [
        part
        for message in messages
        for part in message.parts
        if isinstance(part, pai.ToolReturnPart | pai.RetryPromptPart)
    ]
    return Turn(text=f"The service said: {returns[-1].model_response()}")


def _failing_provider(_: list[pai.ModelMessage]) -> Turn:
    raise ModelHTTPError(
        401, "gpt-4o-mini", body={"message": f"Incorrect API key provided: {PROVIDER_KEY}"}
    )


class Recorder:
    """Every exchange with the app, as text: request line, status, headers, body."""

    def __init__(self, app: FastAPI) -> None:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        headers = {**ALICE, "Authorization": f"Bearer {API_KEY}"}
        self.client = httpx.AsyncClient(
            transport=transport, base_url="http://runyard", headers=headers
        )
        self.seen: list[str] = []
        """What came back: each response's status, headers and body (SSE frames included)."""
        self.statuses: dict[str, int] = {}

    async def send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        response = await self.client.request(method, path, **kwargs)
        self.statuses[f"{method} {path}"] = response.status_code
        self.seen.append(f"{response.status_code}\n{response.headers!r}\n{response.text}")
        return response

    async def settled(self, thread: str) -> dict[str, Any]:
        """The thread's status once no run is active (or it waits for an answer)."""
        async with asyncio.timeout(30):
            while True:
                status: dict[str, Any] = (
                    await self.send("GET", f"/v1/threads/{thread}/status")
                ).json()
                if not status["hasActiveRun"] or status["isSuspended"]:
                    return status
                await asyncio.sleep(0.02)


@pytest.fixture
async def target() -> AsyncIterator[HttpTarget]:
    async with http_target() as server:
        server.respond(ECHOED.encode())
        yield server


@pytest.fixture
def database(postgresql_db: str) -> Iterator[str]:
    """The session's PostgreSQL database, its URL with a password (trust auth ignores it);
    emptied afterwards for the tests that follow."""
    yield postgresql_db.replace("://postgres@", f"://postgres:{DB_PASSWORD}@")
    asyncio.run(truncate_all(postgresql_db))


@pytest.fixture
def canary_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", PROVIDER_KEY)


async def _dump(url: str) -> str:
    """Every row of every table of the database, as JSON text."""
    conn = await asyncpg.connect(url)
    try:
        tables = await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        )
        rows = [
            f"{table['tablename']}: {row[0]}"
            for table in tables
            for row in await conn.fetch(
                f'SELECT row_to_json(t)::text FROM "{table["tablename"]}" t'
            )
        ]
    finally:
        await conn.close()
    return "\n".join(rows)


async def _drive(app: FastAPI, target: HttpTarget) -> Recorder:
    calls = Recorder(app)
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    # A run whose tool reads secrets back and whose model repeats them.
    await calls.send("POST", "/v1/chat/t1", json={"message": "read the wiki"})
    await calls.settled("t1")
    # A tool error over a URL with a password, then a provider error quoting the key.
    await calls.send("POST", "/v1/chat/t2", json={"message": "try the other wiki"})
    await calls.settled("t2")
    # A run waiting for approval: its checkpoint and confirmation hold the note's text.
    await calls.send("POST", "/v1/chat/t3", json={"message": "remember my key"})
    await calls.settled("t3")
    for method, path, kwargs in [
        ("POST", "/v1/chat/t1", {"json": {}}),
        ("POST", "/v1/chat/t1", {"content": b"{not json"}),
        ("POST", "/v1/chat/bad%20id!", {"json": {"message": "x"}}),
        ("POST", "/v1/chat/t4", {"json": {"message": "x", "agentId": "nobody"}}),
        ("POST", "/v1/chat/t3", {"json": {"message": "again"}}),
        ("GET", "/v1/events/t1", {}),
        ("GET", "/v1/events/t2", {}),
        ("GET", "/v1/events/t3", {}),
        ("GET", "/v1/events/t1?lastEventId=nope", {}),
        ("GET", "/v1/events/unknown", {}),
        ("POST", "/v1/confirm/cr_unknown", {"json": {"approved": True}}),
        ("POST", "/v1/confirm/cr_unknown", {"json": {"approved": "maybe"}}),
        ("POST", "/v1/chat/t2/cancel", {}),
        ("POST", "/v1/chat/unknown/cancel", {}),
        ("GET", "/v1/threads/t1/messages", {}),
        ("GET", "/v1/threads/t2/messages", {}),
        ("GET", "/v1/threads/t3/messages", {}),
        ("GET", "/v1/threads/unknown/messages", {}),
        ("GET", "/v1/threads/unknown/status", {}),
        ("GET", "/v1/threads", {}),
        ("GET", "/v1/threads?limit=-1", {}),
        ("DELETE", "/v1/threads/unknown", {}),
        ("GET", "/v1/catalog", {}),
        ("GET", "/v1/agents", {}),
        ("POST", "/v1/route", {"json": {}}),
        ("POST", "/v1/route", {"json": {"uiPage": "/x"}}),
        ("GET", "/v1/admin/agents/front/versions", {}),
        ("GET", "/v1/admin/agents/front/versions", {"headers": {"Authorization": "Bearer no"}}),
        ("GET", "/v1/admin/agents/front/versions", {"headers": admin}),
        ("PUT", "/v1/admin/agents/front", {"headers": admin, "json": {"model": 3}}),
        ("POST", "/v1/admin/agents/front/activate", {"headers": admin, "json": {"version": "x"}}),
        ("DELETE", "/v1/admin/agents/nobody/active", {"headers": admin}),
        ("GET", f"/v1/threads/t1/status?apiKey={API_KEY}", {}),
        ("GET", "/healthz", {}),
        ("GET", "/readyz", {}),
        ("GET", "/openapi.json", {}),
        ("GET", "/boom", {}),
    ]:
        await calls.send(method, path, **kwargs)
    await calls.client.aclose()
    return calls


def _boom_route(app: FastAPI) -> None:
    """A route that fails the way a bug would, with a secret in the exception's text."""

    async def boom() -> None:
        raise RuntimeError(
            f"cannot reach postgresql://postgres:{DB_PASSWORD}@db/x ({PROVIDER_KEY})"
        )

    app.add_api_route("/boom", boom, methods=["GET"])


async def test_no_canary_secret_reaches_logs_responses_events_or_the_database(
    database: str,
    tmp_path: Path,
    target: HttpTarget,
    canary_env: None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    catalog = tmp_path / "agents"
    catalog.mkdir()
    (catalog / "agents.yaml").write_text(CATALOG)
    closed = free_port()
    front = scripted_model(
        [
            call("intranet", {"method": "GET", "url": target.url("127.0.0.1", "/echo")}),
            _echo_tool_result,
            call(
                "intranet",
                {"method": "GET", "url": f"http://wiki:{URL_PASSWORD}@127.0.0.1:{closed}/x"},
            ),
            _failing_provider,
            call("save_note", {"text": f"remember {PROVIDER_KEY} and {PATTERN_SECRET}"}),
        ]
    )
    settings = {
        "catalog_dir": str(catalog),
        "egress_allow": "127.0.0.1",
        "admin_token": ADMIN_TOKEN,
        "redact_patterns": [r"acme-canary-\d{6}"],
    }
    async with running_app(
        database,
        settings=settings,
        model_for={"openai:gpt-4o-mini": front}.__getitem__,
        sse_follow=False,
    ) as app:
        _boom_route(app)
        calls = await _drive(app, target)
        dump = await _dump(database)

    responses = "\n".join(calls.seen)
    logs = caplog.text
    # The paths that carry secrets were really taken: the secrets were there to redact.
    assert [r.headers.get("authorization") for r in target.requests] == [f"Token {TOOL_CREDENTIAL}"]
    assert REDACTED in responses
    assert REDACTED in dump
    assert calls.statuses["GET /boom"] == 500
    assert "answered HTTP 401" in responses
    assert "confirmation-request" in responses
    leaks = {
        (name, where)
        for name, secret in CANARIES.items()
        for where, text in [("responses", responses), ("logs", logs), ("database", dump)]
        if secret in text
    }
    assert leaks == set(), [line for line in dump.splitlines() if PROVIDER_KEY in line]


async def test_a_tool_credential_a_hot_reload_brings_is_redacted_from_the_next_run(
    tmp_path: Path, target: HttpTarget
) -> None:
    fresh = "CANARYreloadedCredential9"
    target.respond(f"you sent {fresh}".encode())
    catalog = tmp_path / "agents"
    catalog.mkdir()
    (catalog / "agents.yaml").write_text(CATALOG)
    echo = {"method": "GET", "url": target.url("127.0.0.1", "/echo")}
    front = scripted_model([call("intranet", echo), Turn(text="done")])
    settings = {"catalog_dir": str(catalog), "egress_allow": "127.0.0.1"}
    url = f"sqlite:///{tmp_path / 'runyard.db'}"
    async with serving(url, catalog, {"openai:gpt-4o-mini": front}, **settings) as app:
        before = await catalog_body(app)
        (catalog / "agents.yaml").write_text(CATALOG.replace(TOOL_CREDENTIAL, fresh))
        await next_generation(app, before["generation"])
        events = await run(app, "t1", {"message": "read it"})

    [result] = [e["payload"] for e in events if e["type"] == "tool-result"]
    assert [r.headers.get("authorization") for r in target.requests] == [f"Token {fresh}"]
    assert result["result"]["body"] == f"you sent {REDACTED}"
