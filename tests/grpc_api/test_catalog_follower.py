"""A follower replica (``runyard serve --catalog grpc://...``): it serves its leader's catalog,
follows the leader's edits live, keeps serving while the leader is away and catches up when it
is back."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from subprocess import Popen
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from grpc_harness import Served, grpc_served
from test_serve_grpc import free_port, ready

from runyard.config import Settings
from runyard.grpc import GrpcCatalogFeed, GrpcServer, GrpcState
from runyard.http import create_app
from runyard.testing import ScriptedModel, scripted_model, text

pytestmark = pytest.mark.slow

MODEL = "openai:gpt-4o-mini"
IDENTITY = {"X-Runyard-Tenant": "acme", "X-Runyard-User": "alice"}
ADMIN_TOKEN = "follower-admin-token"


def agents_yaml(instructions: str) -> str:
    return f"""\
kind: agent
id: support
model: {MODEL}
instructions: {instructions}
tools: [calculator]
---
kind: routing
default_agent: support
"""


@asynccontextmanager
async def follower(
    tmp_path: Path, leader_port: int, model: ScriptedModel
) -> AsyncIterator[FastAPI]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'follower.db'}",
        model="runyard:demo",
        auth="proxy",
        catalog_poll_seconds=0.2,
        admin_token=ADMIN_TOKEN,
    )
    feed = GrpcCatalogFeed(f"127.0.0.1:{leader_port}")
    app = create_app(settings, catalog_feed=feed, model_for=lambda _name: model, titles=False)
    async with app.router.lifespan_context(app):
        yield app


async def catalog(app: FastAPI) -> dict[str, Any]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://r", headers=IDENTITY) as c:
        response = await c.get("/v1/catalog")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def versions(app: FastAPI, agent_id: str) -> dict[str, Any]:
    """``GET /v1/admin/agents/{agent_id}/versions`` of the shared agent."""
    transport = httpx.ASGITransport(app=app)
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://r", headers=admin) as c:
        response = await c.get(f"/v1/admin/agents/{agent_id}/versions")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def until(app: FastAPI, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """``GET /v1/catalog`` once ``done`` holds for it (the test allows 15 s)."""
    async with asyncio.timeout(15):
        while True:
            body = await catalog(app)
            if done(body):
                return body
            await asyncio.sleep(0.02)


def instructions(app: FastAPI) -> str | None:
    entry = app.state.runyard.parts.catalog.catalog.agent("support")
    return None if entry is None else str(entry.spec.instructions)


async def chat(app: FastAPI, thread: str) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://r", headers=IDENTITY) as c:
        response = await c.post(f"/v1/chat/{thread}", json={"message": "hello"})
    assert response.status_code == 200, response.text
    async with asyncio.timeout(20):
        await app.state.runyard.parts.runs.wait_idle(("acme", "alice", thread))


async def restarted(leader: Served, port: int) -> GrpcServer:
    """The leader's gRPC server again, on the port it had, serving the same app."""
    runyard = leader.app.state.runyard
    state = GrpcState(runyard.settings, runyard.redactor, metrics=runyard.metrics)
    state.catalog_poll_seconds = 0.02
    server = GrpcServer(state, "127.0.0.1", port)
    await server.start()
    await server.serve(runyard.parts)
    return server


async def test_a_follower_serves_follows_outlives_and_catches_up_with_its_leader(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "agents.yaml").write_text(agents_yaml("You are the LEADER one."))
    model = scripted_model([text("one"), text("two"), text("three")])
    async with grpc_served(
        f"sqlite:///{tmp_path / 'leader.db'}",
        settings={"catalog_dir": str(directory)},
        model_for=lambda _name: scripted_model([]),
    ) as leader:
        port = leader.server.port
        async with follower(tmp_path, port, model) as app:
            first = await catalog(app)
            on_leader = await catalog(leader.app)
            stored = await versions(app, "support")
            await chat(app, "t1")

            (directory / "agents.yaml").write_text(agents_yaml("You are the LEADER two."))
            edited = await until(app, lambda _b: instructions(app) == "You are the LEADER two.")

            await leader.server.drain(0)
            await chat(app, "t2")
            during = await catalog(app)
            (directory / "agents.yaml").write_text(agents_yaml("You are the LEADER three."))
            await until(
                leader.app, lambda _b: instructions(leader.app) == "You are the LEADER three."
            )
            stale = instructions(app)

            back = await restarted(leader, port)
            try:
                caught_up = await until(
                    app, lambda _b: instructions(app) == "You are the LEADER three."
                )
                await chat(app, "t3")
            finally:
                await back.drain(0)

    assert (first["origin"], first["directory"]) == ("leader", f"grpc://127.0.0.1:{port}")
    leader_specs = [(s["kind"], s["id"], s["version"]) for s in on_leader["specs"]]
    assert [(s["kind"], s["id"], s["version"]) for s in first["specs"]] == leader_specs
    assert {(s["origin"], s["source"]) for s in first["specs"]} == {
        ("leader", f"grpc://127.0.0.1:{port}")
    }
    # The versions it stored say they came from the leader, not from a file of its own.
    assert stored["activeOrigin"] == "leader"
    assert [(v["origin"], v["source"]) for v in stored["versions"]] == [
        ("leader", f"grpc://127.0.0.1:{port}")
    ]
    assert "You are the LEADER one." in repr(model.requests[0])
    assert edited["generation"] > first["generation"]
    assert during["specs"] == edited["specs"]
    assert "You are the LEADER two." in repr(model.requests[1])
    assert stale == "You are the LEADER two."  # the leader was away: nothing reached it
    assert caught_up["generation"] > edited["generation"]
    assert "You are the LEADER three." in repr(model.requests[2])


def spawn(tmp_path: Path, name: str, http_port: int, *args: str, **env: str) -> Popen[bytes]:
    """``runyard serve`` on ``http_port`` with ``args``, its output in ``<name>.log``."""
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environ.update(
        RUNYARD_DATABASE_URL=f"sqlite:///{tmp_path / f'{name}.db'}",
        RUNYARD_REDIS_URL="",
        RUNYARD_CATALOG_DIR="",
        PYTHONUNBUFFERED="1",
    )
    environ.update(env)
    command = [sys.executable, "-m", "runyard", "serve", "--port", str(http_port), *args]
    with (tmp_path / f"{name}.log").open("wb") as sink:
        return Popen(command, env=environ, stdout=sink, stderr=sink, cwd=tmp_path)


async def test_a_follower_process_outlives_a_killed_leader_and_catches_up_when_it_is_back(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "agents"
    directory.mkdir()
    (directory / "agents.yaml").write_text(agents_yaml("One.").replace(MODEL, "runyard:demo"))
    leader_http, leader_grpc, follower_http = free_port(), free_port(), free_port()
    source = f"grpc://127.0.0.1:{leader_grpc}"

    def start_leader() -> Popen[bytes]:
        return spawn(
            tmp_path,
            "leader",
            leader_http,
            "--grpc-port",
            str(leader_grpc),
            RUNYARD_CATALOG_DIR=str(directory),
        )

    leader = start_leader()
    follower_process = spawn(
        tmp_path, "follower", follower_http, "--grpc-port", "0", "--catalog", source
    )
    try:
        await ready(leader_http)
        await ready(follower_http)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{follower_http}") as client:
            first = (await client.get("/v1/catalog")).json()
            leader.kill()
            await asyncio.to_thread(leader.wait, 20)
            alone = (await client.post("/v1/chat/t1", json={"message": "still here?"})).status_code
            during = (await client.get("/v1/catalog")).json()

            (directory / "agents.yaml").write_text(
                agents_yaml("Two.").replace(MODEL, "runyard:demo")
            )
            leader = start_leader()
            async with asyncio.timeout(60):
                while True:
                    caught_up = (await client.get("/v1/catalog")).json()
                    if caught_up["specs"] != first["specs"]:
                        break
                    await asyncio.sleep(0.1)
        follower_process.terminate()
        code = await asyncio.to_thread(follower_process.wait, 30)
    finally:
        for process in (leader, follower_process):
            if process.poll() is None:
                process.kill()
                process.wait(20)

    assert (first["origin"], first["directory"]) == ("leader", source)
    assert alone == 200
    assert during["specs"] == first["specs"]
    assert caught_up["generation"] > first["generation"]
    assert code == 0
    report = " ".join((tmp_path / "follower.log").read_text().split())
    assert f"catalog {source} (follower: the leader's catalog, changes applied live)" in report
