"""A start-up the database does not answer: it waits for it, then gives up saying so."""

from __future__ import annotations

import socket

import pytest

from runyard.config import Settings
from runyard.http import create_app
from runyard.storage import DatabaseUnavailable
from runyard.storage.sql import engine


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_a_start_up_without_its_database_says_it_gave_up_waiting_for_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(engine, "RECONNECT_SECONDS", 0.3)
    url = f"postgresql://postgres@127.0.0.1:{closed_port()}/runyard"
    app = create_app(Settings(database_url=url, model="runyard:demo"))

    with pytest.raises(DatabaseUnavailable):
        async with app.router.lifespan_context(app):
            pass

    said = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any(m.startswith("start-up gave up waiting for the database: ") for m in said), said
    assert not any("restart" in m for m in said), said
