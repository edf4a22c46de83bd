"""Redis outages under real ``runyard serve`` replicas (issue 11 item 6): Redis down at start-up,
up, killed mid-run and back. The run goes on; event streams on the replicas that do not run it
get every event exactly once and in order throughout, by polling the log while Redis is down;
``/readyz`` stays 200 and says ``polling``, then ``live`` again with no restart and no client
action. The Redis is the test's own (``private_redis``), never the shared one.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from unittest.mock import ANY

import httpx
import pytest
from http_harness import Frame, FrameParser, free_port
from server_process import client_for, server

from postgres_databases import private_database
from private_redis import PrivateRedis, private_redis

pytestmark = pytest.mark.slow

SLOW = "/delay 50\n" + "word " * 1500
"""A run that streams for minutes, a delta every 50 ms: it outlives every step and is cancelled."""


@pytest.fixture(scope="module")
def postgresql_url() -> Iterator[str]:
    yield from private_database("RUNYARD_TEST_POSTGRES_URL", "runyard_redis_outage")


class Stream:
    """An SSE client following a thread on one server, keeping every event frame it gets."""

    def __init__(self, client: httpx.AsyncClient, thread: str) -> None:
        self.client, self.thread = client, thread
        self.frames: list[Frame] = []
        self._grew = asyncio.Event()
        self.task = asyncio.create_task(self._follow())

    async def _follow(self) -> None:
        parser = FrameParser()
        async with self.client.stream("GET", f"/v1/events/{self.thread}", timeout=None) as response:
            async for chunk in response.aiter_bytes():
                self.frames += [frame for frame in parser.feed(chunk) if frame.data is not None]
                self._grew.set()

    async def until(self, condition: Callable[[list[Frame]], bool], within: float = 60) -> None:
        """Wait until the frames received so far satisfy ``condition``."""
        async with asyncio.timeout(within):
            while not condition(self.frames):
                assert not self.task.done(), "the stream ended early"
                self._grew.clear()
                await self._grew.wait()

    async def more(self, count: int) -> None:
        """Wait for ``count`` more frames than it has now."""
        target = len(self.frames) + count
        await self.until(lambda frames: len(frames) >= target)

    async def finish(self) -> None:
        await self.until(lambda frames: any(kind(f) == "run-finish" for f in frames))


def kind(frame: Frame) -> str:
    return str((frame.data or {}).get("type"))


async def until_delivery(client: httpx.AsyncClient, delivery: str) -> None:
    """Wait until the server's ``/readyz`` (200 all along) says ``delivery``."""
    async with asyncio.timeout(30):
        while True:
            ready = await client.get("/readyz")
            assert ready.status_code == 200
            if ready.json() == {"status": "ready", "role": "all", "eventDelivery": delivery}:
                return
            await asyncio.sleep(0.05)


async def test_event_streams_get_every_event_once_through_redis_down_up_killed_and_back(
    postgresql_url: str,
) -> None:
    thread = f"t-{uuid.uuid4().hex[:8]}"
    with private_redis(started=False) as redis:
        frames = await through_outages(postgresql_url, redis, thread)

    for stream in frames:
        ids = [f.id for f in stream]
        assert ids == list(range(1, len(ids) + 1))  # every event, once, in order
        finishes = [(f.data or {})["payload"] for f in stream if kind(f) == "run-finish"]
        assert finishes == [{"status": "cancelled", "reason": "user_cancelled", "usage": ANY}]
    assert [f.data for f in frames[0]] == [f.data for f in frames[1]]


async def through_outages(url: str, redis: PrivateRedis, thread: str) -> list[list[Frame]]:
    """Replica A runs the run; B follows it polling every 0.2 s while Redis is down; C would
    poll only after an hour, so every event it gets once Redis is back came live. The frames
    B and C received."""
    ports = [free_port() for _ in range(3)]
    env = {"RUNYARD_REDIS_URL": redis.url, "RUNYARD_BUS_POLL_SECONDS": "0.2"}
    with (
        server(url, ports[0], **env),
        server(url, ports[1], **env),
        server(url, ports[2], **{**env, "RUNYARD_BUS_POLL_SECONDS": "3600"}),
    ):
        async with AsyncExitStack() as stack:
            # Three servers starting at once on a busy machine: more time than one gets.
            a, b, c = [
                await stack.enter_async_context(client_for(port, within=180)) for port in ports
            ]
            for client in (a, b, c):  # Redis down at start-up: serving anyway
                await until_delivery(client, "polling")
            polled, live = Stream(b, thread), Stream(c, thread)
            started = await a.post(f"/v1/chat/{thread}", json={"message": SLOW})
            assert started.status_code == 200, started.text
            await polled.more(10)  # by polling: no Redis yet

            await asyncio.to_thread(redis.start)
            for client in (a, b, c):
                await until_delivery(client, "live")
            await live.more(10)

            await asyncio.to_thread(redis.stop)  # killed mid-run
            await until_delivery(b, "polling")
            await polled.more(10)  # the run goes on, and B's stream with it

            await asyncio.to_thread(redis.start)
            await until_delivery(c, "live")
            await live.more(10)  # back by itself: no restart, no reconnect by the client
            cancelled = await a.post(f"/v1/chat/{thread}/cancel")
            assert cancelled.status_code == 200
            await polled.finish()
            await live.finish()  # C polls hourly: run-finish came live
            for stream in (polled, live):
                stream.task.cancel()
            return [polled.frames, live.frames]
