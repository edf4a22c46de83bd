"""Helpers for the HTTP tests: the app in-process (ASGI) and on a real uvicorn socket, and an
SSE frame parser. SSE over ASGI calls the app directly: httpx's ASGI transport buffers whole
responses, which an endless stream never ends."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from runyard.agent import Agent
from runyard.config import Settings
from runyard.http import create_app
from runyard.service import Owner
from runyard.storage import Store, open_store

ALICE = {"X-Runyard-Tenant": "acme", "X-Runyard-User": "alice"}
ALICE_OWNER = Owner("acme", "alice")


@dataclass
class Frame:
    """One SSE frame: an event (``id`` and ``data``), a named frame (``event``), ``retry``, or a
    comment."""

    id: int | None = None
    data: dict[str, Any] | None = None
    comment: str | None = None
    event: str | None = None
    retry: int | None = None


@dataclass
class FrameParser:
    """Splits an SSE byte stream into frames."""

    buffer: str = ""
    frames: list[Frame] = field(default_factory=list)

    def feed(self, chunk: bytes) -> list[Frame]:
        self.buffer += chunk.decode()
        parsed = []
        while "\n\n" in self.buffer:
            raw, self.buffer = self.buffer.split("\n\n", 1)
            frame = Frame()
            for line in raw.split("\n"):
                key, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if key == "":
                    frame.comment = value
                elif key == "id":
                    frame.id = int(value)
                elif key == "data":
                    frame.data = json.loads(value)
                elif key == "event":
                    frame.event = value
                elif key == "retry":
                    frame.retry = int(value)
            parsed.append(frame)
        self.frames.extend(parsed)
        return parsed


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


AgentsFactory = Callable[[Store], Sequence[Agent]]


@asynccontextmanager
async def built_app(
    url: str,
    agents: AgentsFactory | None = None,
    *,
    settings: dict[str, Any] | None = None,
    **options: Any,
) -> AsyncIterator[FastAPI]:
    """The app (lifespan not entered); with ``agents``, they get a store this helper owns.

    ``settings`` overrides fields of the test ``Settings``; ``options`` go to ``create_app``.
    The tests act for ``ALICE`` through the identity headers, so they run with
    ``RUNYARD_AUTH=proxy`` unless ``settings`` says otherwise.
    """
    config = Settings(
        **{
            "database_url": url,
            "model": "runyard:demo",
            "max_body_bytes": 64_000,
            "auth": "proxy",
            **(settings or {}),
        }
    )
    options.setdefault("titles", False)
    if agents is None:
        yield create_app(config, **options)
        return
    store = await open_store(url)
    try:
        built = {a.name: a for a in agents(store)}
        yield create_app(config, store=store, agents=built, **options)
    finally:
        await store.close()


@asynccontextmanager
async def running_app(
    url: str,
    agents: AgentsFactory | None = None,
    *,
    settings: dict[str, Any] | None = None,
    **options: Any,
) -> AsyncIterator[FastAPI]:
    """The app with its lifespan entered, as a server would run it."""
    async with (
        built_app(url, agents, settings=settings, **options) as app,
        app.router.lifespan_context(app),
    ):
        yield app


@asynccontextmanager
async def asgi_client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://runyard", headers=ALICE
    ) as c:
        yield c


@dataclass
class AsgiStream:
    """An SSE response read straight from the ASGI app."""

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    parser: FrameParser = field(default_factory=FrameParser)
    arrived: asyncio.Queue[Frame] = field(default_factory=asyncio.Queue)
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the server ended the response (the last body message)."""

    async def rest(self) -> list[Frame]:
        """Every frame not yet taken, once the server has ended the response."""
        await asyncio.wait_for(self.ended.wait(), timeout=20)
        frames = []
        while not self.arrived.empty():
            frames.append(self.arrived.get_nowait())
        return frames

    async def next_event(self) -> Frame:
        """The next frame that carries a wire event (comments, ``retry`` and named frames
        skipped)."""
        while True:
            frame = await asyncio.wait_for(self.arrived.get(), timeout=20)
            if frame.data is not None and frame.event is None:
                return frame

    async def until(self, event_type: str) -> list[Frame]:
        """Event frames up to and including the first of ``event_type``."""
        frames = []
        while True:
            frame = await self.next_event()
            frames.append(frame)
            assert frame.data is not None
            if frame.data["type"] == event_type:
                return frames


@asynccontextmanager
async def asgi_sse(
    app: FastAPI, path: str, headers: dict[str, str] | None = None
) -> AsyncIterator[AsgiStream]:
    """Open ``GET path`` as an SSE stream on the ASGI app; leaving the block disconnects."""
    raw_headers = [
        (k.lower().encode(), v.encode()) for k, v in {**ALICE, **(headers or {})}.items()
    ]
    target, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": target,
        "raw_path": target.encode(),
        "query_string": query.encode(),
        "headers": raw_headers,
        "client": ("127.0.0.1", 1),
        "server": ("runyard", 80),
    }
    stream = AsgiStream()
    gone = asyncio.Event()
    started = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            stream.status = message["status"]
            stream.headers = {k.decode(): v.decode() for k, v in message["headers"]}
            started.set()
        elif message["type"] == "http.response.body":
            for frame in stream.parser.feed(message.get("body", b"")):
                stream.arrived.put_nowait(frame)
            if not message.get("more_body", False):
                stream.ended.set()

    task = asyncio.create_task(app(scope, receive, send))
    try:
        await asyncio.wait_for(started.wait(), timeout=20)
        yield stream
    finally:
        gone.set()
        await asyncio.wait_for(task, timeout=20)


@asynccontextmanager
async def live_server(app: FastAPI) -> AsyncIterator[str]:
    """``app`` served by uvicorn on a free loopback port (lifespan included); its base URL."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(20):
            while not server.started:  # noqa: ASYNC110  # uvicorn offers only this flag
                await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, timeout=20)


async def settled(app: FastAPI, thread_id: str, owner: Owner = ALICE_OWNER) -> None:
    """Wait until the app drives no run segment of the thread (its run row is closed too).

    A client sees ``run-finish`` a moment before the run's row is closed; tests that look at the
    run's state after its events wait for this first.
    """
    async with asyncio.timeout(20):
        await app.state.runyard.parts.runs.wait_idle(owner.thread_key(thread_id))
