"""The same API on a real uvicorn socket (127.0.0.1, a free port): SSE bytes on the wire,
reconnect with Last-Event-ID, racing POSTs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from unittest.mock import ANY

import httpx
import pytest
from http_harness import ALICE, Frame, FrameParser, built_app, live_server

from sqlite_databases import MigratedSqlite


@pytest.fixture
def url(tmp_path: Path, migrated_sqlite: MigratedSqlite) -> str:
    return migrated_sqlite.file(tmp_path / "runyard.db")


async def read_until(
    client: httpx.AsyncClient, path: str, event_type: str, headers: dict[str, str] | None = None
) -> tuple[httpx.Headers, list[Frame]]:
    parser = FrameParser()
    async with asyncio.timeout(20), client.stream("GET", path, headers=headers) as response:
        async for chunk in response.aiter_bytes():
            for frame in parser.feed(chunk):
                if frame.data is not None and frame.data["type"] == event_type:
                    return response.headers, [f for f in parser.frames if f.data is not None]
    raise AssertionError("the stream ended early")


async def test_sse_over_a_socket_replays_and_resumes_after_a_reconnect(url: str) -> None:
    async with (
        built_app(url) as app,
        live_server(app) as base,
        httpx.AsyncClient(base_url=base, headers=ALICE) as client,
    ):
        posted = await client.post("/v1/chat/t1", json={"message": "/delay 5\nhello over tcp"})
        headers, first = await read_until(client, "/v1/events/t1", "reasoning-delta")
        cut = first[-1].id
        _, rest = await read_until(
            client, "/v1/events/t1", "run-finish", headers={"Last-Event-ID": str(cut)}
        )

    assert posted.status_code == 200
    assert headers["content-type"] == "text/event-stream"
    assert headers["x-accel-buffering"] == "no"
    assert headers["cache-control"] == "no-cache"
    ids = [f.id for f in first] + [f.id for f in rest]
    assert ids == list(range(1, len(ids) + 1))
    assert rest[-1].data is not None
    assert rest[-1].data["payload"] == {"status": "completed", "usage": ANY}


async def test_fifty_racing_posts_over_sockets_have_one_winner(url: str) -> None:
    async with built_app(url) as app, live_server(app) as base:
        limits = httpx.Limits(max_connections=50)
        # Not httpx's 5 s default: fifty requests at once on a busy machine (xdist workers
        # beside each other) may queue longer; what is asserted is who wins, not how fast.
        async with httpx.AsyncClient(
            base_url=base, headers=ALICE, limits=limits, timeout=60
        ) as client:
            responses = await asyncio.gather(
                *(
                    client.post("/v1/chat/t1", json={"message": "/delay 100\n" + "word " * 40})
                    for _ in range(50)
                )
            )
            await client.post("/v1/chat/t1/cancel")

    assert sorted(r.status_code for r in responses) == [200] + [409] * 49
