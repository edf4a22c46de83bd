"""What the scenarios do to the replicas over HTTP: start runs, race, cancel, follow to the end."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
from replicas import IDENTITY
from sse_record import WITHIN, Follower, finish_of

import chat_start

SLOW = "/delay 20\n" + "word " * 400
"""A run that streams for ~16 s (two deltas per word, 20 ms apart): live while a test races it."""


def new_thread(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@asynccontextmanager
async def http(connections: int = 100) -> AsyncIterator[httpx.AsyncClient]:
    """One client for every replica (absolute URLs), acting for the test's user."""
    # Idle connections are dropped before uvicorn's 5 s keep-alive closes them, so a POST never
    # goes out on a connection the server is closing (httpx retries no POST).
    limits = httpx.Limits(
        max_connections=connections, max_keepalive_connections=connections, keepalive_expiry=2
    )
    async with httpx.AsyncClient(headers=IDENTITY, timeout=WITHIN, limits=limits) as client:
        yield client


async def start_run(
    client: httpx.AsyncClient,
    base_url: str,
    thread: str,
    message: str,
    agent_id: str | None = None,
) -> str:
    """POST a message (to ``agent_id``, else the default agent); the run's id. A 409 (the
    thread's previous run still closing) is retried."""
    url = f"{base_url}/v1/chat/{thread}"
    return await chat_start.start_run(client, url, message, WITHIN, agent_id)


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


RETRY = 0.2
"""Seconds a client waits before reconnecting after its connection dropped (EventSource's
``retry``); a client's own pacing, not a wait for something to happen."""


async def keep_following(follower: Follower, base_url: str, run_id: str, within: float) -> bool:
    """Follow the thread on ``base_url`` until ``run_id`` finished, reconnecting with
    ``Last-Event-ID`` whenever the connection drops, as a browser does. Whether the run's
    ``run-finish`` arrived within ``within`` seconds."""
    try:
        async with asyncio.timeout(within):
            while not follower.finished(run_id):
                with contextlib.suppress(httpx.HTTPStatusError):
                    await follower.follow(base_url, until=run_id)
                if not follower.finished(run_id):
                    await asyncio.sleep(RETRY)
    except TimeoutError:
        return False
    return True


async def start_through_outage(
    client: httpx.AsyncClient, url: str, thread: str, message: str, known: set[str], within: float
) -> str | None:
    """POST ``message`` until a run starts, through a replica's or a database's outage; after an
    answer lost to the outage, adopt the run it started (one not in ``known``). None if no run
    started within ``within`` seconds."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            return await _post_until_started(client, url, thread, message, known)
    return None


async def _post_until_started(
    client: httpx.AsyncClient, url: str, thread: str, message: str, known: set[str]
) -> str:
    while True:
        with contextlib.suppress(httpx.TransportError):
            response = await client.post(f"{url}/v1/chat/{thread}", json={"message": message})
            if response.status_code == 200:
                return str(response.json()["runId"])
            if response.status_code == 409:
                active = (await client.get(f"{url}/v1/threads/{thread}/status")).json()
                if active.get("hasActiveRun") and active.get("runId") not in known:
                    return str(active["runId"])
        await asyncio.sleep(RETRY)


async def poll(condition: Callable[[], bool], within: float, what: str) -> None:
    """Wait until ``condition()`` holds — for state no event announces (a file, a row)."""
    try:
        async with asyncio.timeout(within):
            while not condition():  # noqa: ASYNC110 (another process changes it)
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise TimeoutError(f"{what}: not within {within} s") from None
