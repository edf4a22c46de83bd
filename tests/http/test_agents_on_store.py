"""Agents given to ``create_app`` as a function of the store are built on the app's redacting
store: a secret their model answers with reaches neither the events nor the database, their
memory's messages included."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from http_harness import asgi_client, asgi_sse

from runyard import Agent
from runyard.config import Settings
from runyard.http import create_app
from runyard.memory import Memory
from runyard.storage import Store
from runyard.testing import scripted_model, text

SECRET = "canary-Zq8uXw3Lp0TtRv"


async def test_agents_built_on_the_apps_store_write_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CANARY_API_KEY", SECRET)
    path = tmp_path / "runyard.db"
    built: list[Store] = []

    def agents(store: Store) -> dict[str, Agent]:
        built.append(store)
        model = scripted_model([text(f"Your key is {SECRET}, keep it.")])
        return {"assistant": Agent("assistant", model, memory=Memory(store))}

    settings = Settings(database_url=f"sqlite:///{path}", model="runyard:demo", auth="proxy")
    app = create_app(settings, agents=agents, titles=False)
    async with app.router.lifespan_context(app):
        async with asgi_client(app) as client:
            started = await client.post("/v1/chat/t1", json={"message": "my key?"})
            assert started.status_code == 200, started.text
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
        async with asgi_client(app) as client:
            history = (await client.get("/v1/threads/t1/messages")).text

    assert type(built[0]).__name__ == "RedactingStore"
    assert SECRET not in repr([f.data for f in frames])
    assert "Your key is [REDACTED], keep it." in history
    with sqlite3.connect(path) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        rows = "".join(repr(db.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables)
    assert "[REDACTED]" in rows
    assert SECRET not in rows
