"""A message sent the moment the previous run finished starts a run, or is told 409 — never 500."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI
from http_harness import asgi_client, asgi_sse, running_app

pytestmark = pytest.mark.slow

THREADS = 4
ROUNDS = 25


async def post_after_each_finish(app: FastAPI, client: httpx.AsyncClient, thread: str) -> list[int]:
    statuses = []
    async with asgi_sse(app, f"/v1/events/{thread}") as stream:
        for _ in range(ROUNDS):
            response = await client.post(f"/v1/chat/{thread}", json={"message": "hi"})
            statuses.append(response.status_code)
            if response.status_code == 200:
                await stream.until("run-finish")
    return statuses


async def test_a_post_right_after_run_finish_never_fails(any_backend_url: str) -> None:
    async with running_app(any_backend_url) as app, asgi_client(app) as client:
        results = await asyncio.gather(
            *(post_after_each_finish(app, client, f"t{i}") for i in range(THREADS))
        )

    statuses = [s for thread in results for s in thread]
    assert set(statuses) == {200}, statuses
