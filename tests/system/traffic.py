"""What the scenarios do to the replicas over HTTP: start runs, race, cancel, follow to the end."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from replicas import IDENTITY
from sse_record import WITHIN, Follower, finish_of

SLOW = "/delay 20\n" + "word " * 400
"""A run that streams for ~16 s (two deltas per word, 20 ms apart): live while a test races it."""


def new_thread(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@asynccontextmanager
async def http(connections: int = 100) -> AsyncIterator[httpx.AsyncClient]:
    """One client for every replica (absolute URLs), acting for the test's user."""
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    async with httpx.AsyncClient(headers=IDENTITY, timeout=WITHIN, limits=limits) as client:
        yield client


async def start_run(client: httpx.AsyncClient, base_url: str, thread: str, message: str) -> str:
    """POST a message; the run's id. A 409 (the thread's previous run still closing) is retried."""
    async with asyncio.timeout(WITHIN):
        while True:
            response = await client.post(f"{base_url}/v1/chat/{thread}", json={"message": message})
            if response.status_code != 409:
                response.raise_for_status()
                return str(response.json()["runId"])
            await asyncio.sleep(0.05)


@asynccontextmanager
async def following(follower: Follower, base_url: str) -> AsyncIterator[asyncio.Task[None]]:
    """``follower`` reads the thread on ``base_url`` while the block runs."""
    task = asyncio.create_task(follower.follow(base_url))
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def run_to_end(follower: Follower, base_url: str, run_id: str) -> None:
    """Follow the thread on ``base_url`` until ``run_id`` has finished."""
    async with following(follower, base_url):
        await follower.until(finish_of(run_id))
