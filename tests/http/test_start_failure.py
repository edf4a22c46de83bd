"""A run whose start fails leaves no open run behind: the thread is free for the next message at
once. A start is one transaction (the thread's choice, the run's row, the user's message), so a
failed one stores nothing at all; what fails after it (the launch) closes the row it opened
(tests/service/ownership/test_leases.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest
from http_harness import ALICE_OWNER, asgi_client, asgi_sse, running_app

from runyard.agent import Agent
from runyard.config import Settings
from runyard.service import default_agent
from runyard.storage import DatabaseUnavailable, StorageError, Store


class StartFailsOnce:
    """Makes the store's next ``start_run`` fail, as a full disk or a dropped connection would,
    and remembers the store so the test can look at its rows."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, error: StorageError) -> None:
        self.monkeypatch = monkeypatch
        self.store: Store | None = None
        self.error = error

    def __call__(self, store: Store) -> Sequence[Agent]:
        self.store = store
        original = store.start_run

        async def fail_once(*args: Any, **kwargs: Any) -> None:
            self.monkeypatch.setattr(store, "start_run", original)
            raise self.error

        self.monkeypatch.setattr(store, "start_run", fail_once)
        return [default_agent(store, Settings(model="runyard:demo"))]


@pytest.mark.parametrize(
    "error",
    # A database outage answers 503 as well, and its start stored nothing either.
    [StorageError("the disk is full"), DatabaseUnavailable("connection reset by peer")],
)
async def test_a_failed_start_closes_its_run_and_the_next_message_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: StorageError
) -> None:
    failing = StartFailsOnce(monkeypatch, error)
    url = f"sqlite:///{tmp_path / 'runyard.db'}"
    async with running_app(url, failing) as app, asgi_client(app) as client:
        refused = await client.post("/v1/chat/t1", json={"message": "hello"})
        assert failing.store is not None
        assert await failing.store.get_active_run(ALICE_OWNER.thread_key("t1")) is None
        again = await client.post("/v1/chat/t1", json={"message": "hello again"})
        assert again.status_code == 200
        stopped = []
        async with asgi_sse(app, "/v1/events/t1") as stream:
            frames = await stream.until("run-finish")
            while frames[-1].data is not None and frames[-1].data["runId"] != again.json()["runId"]:
                # The stopped run was settled as a sweep settles one: its own run-finish first.
                stopped.append(frames[-1].data["payload"])
                frames = await stream.until("run-finish")

    assert refused.status_code == 503
    assert refused.json()["error"]["code"] == "storage_unavailable"
    assert frames[-1].data is not None
    assert frames[-1].data["payload"] == {"status": "completed", "usage": ANY}
    assert {f.data["runId"] for f in frames if f.data is not None} == {again.json()["runId"]}
    assert stopped == []  # the failed start stored no run to settle
