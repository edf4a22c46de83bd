"""What every request and every SSE frame pays stays small (docs/http.md, "Per-request and
per-frame costs"): no worker thread for a dependency, no body guard around a body of declared
length, one encoding of an event's frame for every stream, fewer young collections."""

from __future__ import annotations

import gc
import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from http_harness import built_app
from starlette.routing import BaseRoute
from starlette.types import Message, Receive, Scope, Send

from runyard.http.body_limit import BodyLimit
from runyard.http.heap import OLD_THRESHOLD, YOUNG_THRESHOLD, tune_collector
from runyard.service import LiveEvent


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runyard.db'}"


def _api_routes(routes: list[BaseRoute]) -> Iterator[APIRoute]:
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)  # FastAPI's included routers
        if included is not None:
            yield from _api_routes(included.routes)


def _calls(dependant: Dependant) -> Iterator[Any]:
    for sub in dependant.dependencies:
        if sub.call is not None:
            yield sub.call
        yield from _calls(sub)


async def test_no_dependency_of_the_api_runs_on_a_worker_thread(url: str) -> None:
    async with built_app(url, settings={"auth": "keys"}) as app:
        routes = list(_api_routes(app.routes))  # /v1 and the faces'
        assert routes
        sync = {
            f"{route.path}: {call.__qualname__}"
            for route in routes
            for call in _calls(route.dependant)
            if call.__module__.startswith("runyard.") and not inspect.iscoroutinefunction(call)
        }
        assert not sync, sorted(sync)


class _Seen:
    def __init__(self) -> None:
        self.receive: Receive | None = None
        self.send: Send | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.receive, self.send = receive, send


async def _receive() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


async def _send(message: Message) -> None:
    return None


def _scope(headers: list[tuple[bytes, bytes]], http_version: str = "1.1") -> Scope:
    return {"type": "http", "http_version": http_version, "method": "GET", "headers": headers}


@pytest.mark.parametrize(
    "headers",
    [[], [(b"content-length", b"12")]],
    ids=["no body", "declared length"],
)
async def test_the_body_limit_leaves_a_body_of_declared_length_alone(
    headers: list[tuple[bytes, bytes]],
) -> None:
    seen = _Seen()
    await BodyLimit(seen, max_bytes=100)(_scope(headers), _receive, _send)
    assert (seen.receive, seen.send) == (_receive, _send)


@pytest.mark.parametrize(
    ("headers", "http_version"),
    [
        ([(b"transfer-encoding", b"chunked")], "1.1"),
        ([], "2"),
        ([(b"content-length", b"x")], "1.1"),
    ],
    ids=["chunked", "HTTP/2", "length not a number"],
)
async def test_the_body_limit_counts_a_body_of_undeclared_length(
    headers: list[tuple[bytes, bytes]], http_version: str
) -> None:
    seen = _Seen()
    await BodyLimit(seen, max_bytes=100)(_scope(headers, http_version), _receive, _send)
    assert seen.receive is not _receive
    assert seen.send is not _send


def test_an_events_frame_is_encoded_once_for_every_stream() -> None:
    event = LiveEvent(7, '{"type":"text-delta","payload":{"text":"é\\n"}}')
    frame = event.sse
    assert frame == 'id: 7\ndata: {"type":"text-delta","payload":{"text":"é\\n"}}\n\n'.encode()
    assert event.sse is frame
    assert event == LiveEvent(7, event.json)  # the kept frame is no part of the value


@pytest.fixture
def gc_threshold() -> Iterator[None]:
    kept = gc.get_threshold()
    yield
    gc.set_threshold(*kept)


@pytest.mark.usefixtures("gc_threshold")
def test_the_server_collects_young_and_old_objects_less_often_and_never_more_often() -> None:
    """(What the first call froze stays frozen: ``gc.freeze`` only spares it the scans.)"""
    gc.set_threshold(700, 10, 10)
    tune_collector()
    assert gc.get_threshold() == (YOUNG_THRESHOLD, 10, OLD_THRESHOLD)
    gc.set_threshold(YOUNG_THRESHOLD * 5, 20, OLD_THRESHOLD * 3)
    tune_collector()
    assert gc.get_threshold() == (YOUNG_THRESHOLD * 5, 20, OLD_THRESHOLD * 3)
    gc.set_threshold(0)  # the collector's thresholds turned off: left so
    tune_collector()
    assert gc.get_threshold()[0] == 0
