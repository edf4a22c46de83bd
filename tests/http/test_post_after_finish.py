"""A message sent the moment the previous run finished starts a run, or is told 409 — never 500."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse, running_app

from postgres_databases import private_database, truncate_all

THREADS = 4
ROUNDS = 25


@pytest.fixture(scope="module")
def postgresql_url() -> Iterator[str]:
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_http")


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'runyard.db'}"
        return
    server: str = request.getfixturevalue("postgresql_url")
    yield server
    asyncio.run(truncate_all(server))


async def post_after_each_finish(app: FastAPI, client: httpx.AsyncClient, thread: str) -> list[int]:
    statuses = []
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        for _ in range(ROUNDS):
            response = await client.post(f"/v1/chat/{thread}", json={"message": "hi"})
            statuses.append(response.status_code)
            if response.status_code == 200:
                await stream.until("run-finish")
    return statuses


async def test_a_post_right_after_run_finish_never_fails(url: str) -> None:
    async with running_app(url) as app, asgi_client(app) as client:
        results = await asyncio.gather(
            *(post_after_each_finish(app, client, f"t{i}") for i in range(THREADS))
        )

    statuses = [s for thread in results for s in thread]
    assert set(statuses) == {200}, statuses
