"""``GET /v1/ws/{threadId}``: the thread's events over a WebSocket (same events and ids as SSE,
resumed from a last id) and its run driven over it (send, confirm, cancel), through uvicorn, with
the ``websockets`` client (docs/http.md, "WebSocket")."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from http_harness import ALICE, FrameParser, built_app, free_port, live_server
from server_process import client_for, server
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from runyard.http.cors import socket_origin_allowed
from runyard.service.api_keys import issue_api_key

NOTE = '/tool save_note {"text": "buy milk"}'
SLOW = "/delay 150\nalpha beta gamma delta epsilon zeta eta theta"


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runyard.db'}"


class Socket:
    """A client socket: events (frames with an ``id``) and answers (``ack``/``error``) apart."""

    def __init__(self, connection: ClientConnection) -> None:
        self.connection = connection
        self.events: list[dict[str, Any]] = []
        self._unread: list[dict[str, Any]] = []

    async def frame(self) -> dict[str, Any]:
        text = await self.connection.recv()
        assert isinstance(text, str)
        frame: dict[str, Any] = json.loads(text)
        return frame

    async def until(self, event_type: str) -> list[dict[str, Any]]:
        """The events up to and including the next of ``event_type``."""
        seen = []
        while True:
            event = self._unread.pop(0) if self._unread else await self.frame()
            assert "id" in event, event  # no answer comes unasked
            self.events.append(event)
            seen.append(event)
            if event["type"] == event_type:
                return seen

    async def ask(self, frame: dict[str, Any] | str | bytes) -> dict[str, Any]:
        """Send ``frame``; the answer to it (events arriving meanwhile are kept for ``until``)."""
        await self.connection.send(frame if isinstance(frame, str | bytes) else json.dumps(frame))
        while "id" in (answer := await self.frame()):
            self._unread.append(answer)
        return answer

    async def refused(self) -> tuple[dict[str, Any], tuple[int, str]]:
        """The error frame a refused socket gets, and how it is closed then."""
        return await self.frame(), await self.closed()

    async def closed(self) -> tuple[int, str]:
        """The close code and reason, once the server has closed the socket."""
        with contextlib.suppress(ConnectionClosed):  # raised for codes other than 1000/1001
            async for unexpected in self.connection:
                raise AssertionError(f"a frame before the close: {unexpected!r}")
        code = self.connection.close_code
        assert code is not None
        return code, self.connection.close_reason or ""


@asynccontextmanager
async def opened(
    base: str, path: str, headers: dict[str, str] | None = None
) -> AsyncIterator[Socket]:
    target = base.replace("http://", "ws://", 1) + path
    given = ALICE if headers is None else headers
    async with connect(target, additional_headers=given, open_timeout=20) as connection:
        yield Socket(connection)


@asynccontextmanager
async def served(url: str, **settings: Any) -> AsyncIterator[str]:
    async with built_app(url, settings=settings) as app, live_server(app) as base:
        yield base


async def sse_until_finish(base: str, thread: str, headers: dict[str, str] = ALICE) -> list[Any]:
    parser = FrameParser()
    async with (
        httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as client,
        client.stream("GET", f"/v1/events/{thread}") as response,
    ):
        async for chunk in response.aiter_bytes():
            for frame in parser.feed(chunk):
                if frame.data is not None and frame.data["type"] == "run-finish":
                    return [(f.id, f.data) for f in parser.frames if f.data and f.id]
    raise AssertionError("the stream ended early")


async def test_the_socket_carries_sses_events_with_sses_ids(url: str) -> None:
    async with served(url) as base:
        async with httpx.AsyncClient(base_url=base, headers=ALICE) as client:
            await client.post("/v1/chat/t1", json={"message": "hello there"})
        over_sse = await sse_until_finish(base, "t1")
        async with opened(base, "/v1/ws/t1") as socket:
            over_socket = await socket.until("run-finish")

    assert [(event.pop("id"), event) for event in over_socket] == over_sse
    assert over_sse[0][1]["type"] == "run-start"


async def test_a_message_sent_on_the_socket_streams_its_run_back(url: str) -> None:
    async with served(url) as base, opened(base, "/v1/ws/t1") as socket:
        ack = await socket.ask({"type": "send", "message": "hello there"})
        events = await socket.until("run-finish")

    assert ack == {"type": "ack", "for": "send", "runId": ack["runId"]}
    assert {event["runId"] for event in events} == {ack["runId"]}
    assert [events[0]["type"], events[-1]["payload"]["status"]] == ["run-start", "completed"]
    assert "".join(e["payload"]["text"] for e in events if e["type"] == "text-delta") == (
        'You said: "hello there"'
    )


async def test_an_approval_is_answered_on_the_socket(url: str) -> None:
    async with served(url) as base, opened(base, "/v1/ws/t1") as socket:
        await socket.ask({"type": "send", "message": NOTE})
        asked = (await socket.until("confirmation-request"))[-1]["payload"]
        answer = {"type": "confirm", "requestId": asked["requestId"], "answer": {"approved": True}}
        ack = await socket.ask(answer)
        events = await socket.until("run-finish")
        again = await socket.ask(answer)
        async with httpx.AsyncClient(base_url=base, headers=ALICE) as client:
            path = f"/v1/confirm/{asked['requestId']}"
            over_http = await client.post(path, json={"approved": True})

    assert ack == {"type": "ack", "for": "confirm", "ok": True}
    (result,) = [e for e in events if e["type"] == "tool-result"]
    assert result["payload"]["result"]["text"] == "buy milk"
    assert events[-1]["payload"]["status"] == "completed"
    # Exactly once, as on HTTP: the same status and body POST /v1/confirm answers.
    assert (again["type"], again["for"], again["status"]) == ("error", "confirm", 409)
    assert (over_http.status_code, over_http.json()) == (409, {"error": again["error"]})


async def test_cancel_on_the_socket_ends_the_run(url: str) -> None:
    async with served(url) as base, opened(base, "/v1/ws/t1") as socket:
        await socket.ask({"type": "send", "message": SLOW})
        await socket.until("text-delta")
        ack = await socket.ask({"type": "cancel"})
        events = await socket.until("run-finish")

    assert ack == {"type": "ack", "for": "cancel", "ok": True}
    finish = events[-1]["payload"]
    assert (finish["status"], finish["reason"]) == ("cancelled", "user_cancelled")


async def test_a_dropped_socket_resumes_from_its_last_id_losing_and_repeating_nothing(
    url: str,
) -> None:
    async with served(url) as base:
        async with opened(base, "/v1/ws/t1") as socket:
            await socket.ask({"type": "send", "message": SLOW})
            before = await socket.until("text-delta")
            socket.connection.transport.abort()  # the network drops it, no closing handshake
        # The run goes on without a listener.
        last = before[-1]["id"]
        async with opened(base, f"/v1/ws/t1?lastEventId={last}") as socket:
            after = await socket.until("run-finish")
        everything = await sse_until_finish(base, "t1")

    ids = [event["id"] for event in before + after]
    assert ids == [event_id for event_id, _ in everything]
    assert after[0]["id"] == last + 1


async def test_a_header_cursor_resumes_too_and_a_bad_one_is_refused_as_on_sse(url: str) -> None:
    async with served(url) as base:
        async with opened(base, "/v1/ws/t1") as socket:
            await socket.ask({"type": "send", "message": "hi"})
            events = await socket.until("run-finish")
        async with opened(base, "/v1/ws/t1", {**ALICE, "Last-Event-ID": "2"}) as socket:
            await socket.ask({"type": "send", "message": "again"})
            resumed = await socket.until("run-start")
        async with opened(base, "/v1/ws/t1?lastEventId=x") as socket:
            refusal, closed = await socket.refused()

    assert resumed[0]["id"] == 3
    assert resumed[-1]["id"] == events[-1]["id"] + 1
    assert refusal["status"] == 400
    assert refusal["error"]["field"] == "lastEventId"
    assert closed == (4400, "invalid_cursor")


@pytest.mark.parametrize(
    ("frame", "field"),
    [
        ("not json", "frame"),
        ("[1, 2]", "frame"),
        (b"\x00binary", "frame"),
        ({"message": "no type"}, "type"),
        ({"type": "dance"}, "type"),
        ({"type": "send"}, "message"),
        ({"type": "send", "message": "hi", "colour": "red"}, "colour"),
        ({"type": "confirm", "requestId": "bad id!", "answer": {"approved": True}}, "requestId"),
        ({"type": "confirm", "requestId": "tc_1", "answer": {}}, "answer.approved"),
        ({"type": "cancel", "now": True}, "now"),
    ],
)
async def test_a_bad_frame_gets_an_error_naming_its_field_and_the_socket_goes_on(
    url: str, frame: Any, field: str
) -> None:
    async with served(url) as base, opened(base, "/v1/ws/t1") as socket:
        error = await socket.ask(frame)
        ack = await socket.ask({"type": "cancel"})

    assert (error["type"], error["status"], error["error"]["code"]) == (
        "error",
        422,
        "invalid_request",
    )
    assert field in [problem["field"] for problem in error["error"]["fields"]]
    assert ack["type"] == "ack"


async def test_a_frame_over_the_body_limit_is_refused_413(url: str) -> None:
    async with served(url, max_body_bytes=1000) as base, opened(base, "/v1/ws/t1") as socket:
        error = await socket.ask({"type": "send", "message": "x" * 2000})

    assert (error["status"], error["error"]["code"]) == (413, "body_too_large")


async def test_a_bad_thread_id_and_a_foreign_page_are_refused_with_a_close_code(url: str) -> None:
    async with served(url) as base:
        async with opened(base, "/v1/ws/bad%20id") as socket:
            bad_id = await socket.refused()
        page = {**ALICE, "Origin": "https://evil.example"}
        async with opened(base, "/v1/ws/t1", page) as socket:
            foreign = await socket.refused()
        own = {**ALICE, "Origin": base}
        async with opened(base, "/v1/ws/t1", own) as socket:
            ack = await socket.ask({"type": "cancel"})

    assert bad_id[0]["error"]["fields"][0]["field"] == "path.thread_id"
    assert bad_id[1] == (4422, "invalid_request")
    assert foreign[1] == (4403, "origin_forbidden")
    assert ack["type"] == "ack"


async def test_with_keys_a_ticket_opens_the_stream_and_the_key_drives_the_run(url: str) -> None:
    async with built_app(url, settings={"auth": "keys"}) as app, live_server(app) as base:
        store = app.state.runyard.parts.store
        alice = (await issue_api_key(store, tenant_id="acme", user_id="alice")).token
        bob = (await issue_api_key(store, tenant_id="acme", user_id="bob")).token
        by_key = {"Authorization": f"Bearer {alice}"}
        async with opened(base, "/v1/ws/t1", by_key) as socket:
            await socket.ask({"type": "send", "message": "alice's secret"})
            alices = await socket.until("run-finish")
        async with httpx.AsyncClient(base_url=base, headers=by_key) as client:
            ticket = (await client.post("/v1/threads/t1/stream-ticket")).json()["ticket"]
        async with opened(base, f"/v1/ws/t1?ticket={ticket}", {}) as socket:
            by_ticket = await socket.until("run-finish")
            read_only = await socket.ask({"type": "cancel"})
        async with opened(base, f"/v1/ws/t2?ticket={ticket}", {}) as socket:
            other_thread = await socket.refused()
        async with opened(base, "/v1/ws/t1", {}) as socket:
            no_key = await socket.refused()
        async with opened(base, "/v1/ws/t1", {"Authorization": f"Bearer {bob}"}) as socket:
            bobs = await socket.ask({"type": "cancel"})
            bobs_own = await socket.ask({"type": "send", "message": "bob here"})
            bob_sees = await socket.until("run-finish")

    assert by_ticket == alices
    assert (read_only["status"], read_only["error"]["code"]) == (403, "ticket_read_only")
    assert other_thread[1] == no_key[1] == (4401, "unauthenticated")
    assert other_thread[0]["status"] == no_key[0]["status"] == 401
    # Bob's t1 is his own thread: none of Alice's events, and his run is his.
    assert bobs["type"] == "ack"
    assert bobs_own["type"] == "ack"
    assert "alice's secret" not in json.dumps(bob_sees)
    assert bob_sees[0]["id"] == 1


async def test_a_stopping_server_sends_what_is_stored_then_closes_going_away(url: str) -> None:
    async with (
        built_app(url) as app,
        live_server(app) as base,
        opened(base, "/v1/ws/t1") as socket,
    ):
        await socket.ask({"type": "send", "message": "hi"})
        events = await socket.until("run-finish")
        draining = asyncio.create_task(app.state.runyard.drain())
        closed = await socket.closed()
        await draining

    assert events[-1]["type"] == "run-finish"
    assert closed == (1001, "server_shutdown")


async def test_an_open_socket_counts_as_an_open_websocket_stream(url: str) -> None:
    async with built_app(url) as app, live_server(app) as base:
        registry = app.state.runyard.metrics.registry
        labels = {"protocol": "websocket"}
        async with opened(base, "/v1/ws/t1") as socket:
            await socket.ask({"type": "cancel"})  # answered: the socket is being served
            while_open = registry.get_sample_value("runyard_streams_open", labels)
    after = registry.get_sample_value("runyard_streams_open", labels)  # the server has stopped

    assert (while_open, after) == (1, 0)


async def test_a_command_is_carried_out_even_when_the_socket_closes_right_after_it(
    url: str,
) -> None:
    async with served(url) as base:
        async with opened(base, "/v1/ws/t1") as socket:
            await socket.ask({"type": "send", "message": SLOW})
            await socket.until("text-delta")
            await socket.connection.send(json.dumps({"type": "cancel"}))
        # Closed without waiting for the answer: the cancel is not cut short with the socket.
        finish = (await sse_until_finish(base, "t1"))[-1][1]

    assert (finish["payload"]["status"], finish["payload"]["reason"]) == (
        "cancelled",
        "user_cancelled",
    )


async def test_runyard_serve_serves_the_socket(tmp_path: Path) -> None:
    port = free_port()
    with server(f"sqlite:///{tmp_path / 'served.db'}", port, RUNYARD_GRPC_PORT="0"):
        async with client_for(port):
            base = f"http://127.0.0.1:{port}"
            async with opened(base, "/v1/ws/t1") as socket:
                ack = await socket.ask({"type": "send", "message": "hello there"})
                events = await socket.until("run-finish")

    assert ack["type"] == "ack"
    assert events[-1]["payload"]["status"] == "completed"


@pytest.mark.parametrize(
    ("origin", "origins", "auth", "allowed"),
    [
        (None, [], "proxy", True),  # not a browser
        ("http://runyard.example:8400", [], "proxy", True),  # the server's own page
        ("https://app.example", ["https://app.example"], "proxy", True),
        ("https://evil.example", ["https://app.example"], "keys", False),
        ("https://evil.example", ["*"], "keys", True),
        # A proxy may sign its users in by cookie, which a browser sends to any socket: * is
        # no credential-free wildcard here, as CORS's * is.
        ("https://evil.example", ["*"], "proxy", False),
    ],
)
def test_which_pages_may_open_a_socket(
    origin: str | None, origins: list[str], auth: str, allowed: bool
) -> None:
    assert socket_origin_allowed(origin, "runyard.example:8400", origins, auth) is allowed
