"""``GET /v1/ws/{threadId}``: the thread's events over a WebSocket, and its run controlled on it.

The same events and ids as ``GET /v1/events/{threadId}`` (both read ``event_batches``), one text
frame each, replayed after ``?lastEventId=`` (or a ``Last-Event-ID`` header) and then live; and
``send``, ``confirm`` and ``cancel`` frames carried out by the HTTP routes' own functions, each
answered by an ``ack`` or an ``error`` frame (``runyard.http.ws_messages``). Who may open it is
decided as for SSE (``stream_reader``: the caller, or a stream ticket in ``?ticket=`` with
``RUNYARD_AUTH=keys``); every command is authorised again, as every HTTP request is. A socket
refused as it opens is accepted first, sent the error, and closed with 4000 + the HTTP status —
a browser sees nothing of a refused handshake. OpenAPI cannot describe it: docs/http.md does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from runyard.http.cors import parse_origins, socket_origin_allowed
from runyard.http.cursor import LAST_EVENT_ID, QUERY_CURSOR, replay_cursor
from runyard.http.errors import error_body, invalid_request_body
from runyard.http.event_feed import ServerGoingAway, event_batches
from runyard.http.identity import TENANT_HEADER, TICKET_PARAM, USER_HEADER, request_caller
from runyard.http.routes import chat
from runyard.http.routes.stream_caller import StreamReader, stream_reader
from runyard.http.state import AppState, Parts, parts
from runyard.http.ws_messages import (
    CLOSE_DATABASE_AWAY,
    CLOSE_END_OF_LOG,
    CLOSE_SERVER_GOING_AWAY,
    Cancel,
    Command,
    Confirm,
    FrameRefused,
    Send,
    event_message,
    parse_command,
    refusal,
    refusal_close,
)
from runyard.ids import is_thread_id
from runyard.service import EventLog, Owner

__all__ = ["router"]

router = APIRouter(prefix="/v1")

_TICKET_READ_ONLY = (
    "a stream ticket opens this thread's events only: send, confirm and cancel need the API "
    "key (open the socket with the Authorization header, or use the HTTP routes)"
)


@dataclass(frozen=True, slots=True)
class _Opened:
    """A socket let in: whose thread it reads, under which key, from which cursor."""

    events: EventLog
    reader: StreamReader
    thread_key: str
    cursor: int


@router.websocket("/ws/{thread_id}")
async def websocket_events(websocket: WebSocket) -> None:
    """Open the thread's event socket (see the module's docstring and docs/http.md)."""
    await websocket.accept()
    state: AppState = websocket.app.state.runyard
    try:
        opened = await _open(websocket)
    except Exception as exc:  # every refusal is told, as its HTTP request would be
        status, body = refusal(exc)
        with contextlib.suppress(WebSocketDisconnect, OSError, RuntimeError):
            await websocket.send_text(_error_frame(state, None, status, body))
            code, reason = refusal_close(status, body)
            await websocket.close(code, reason)
        return
    with state.metrics.stream_open("websocket"):
        await _EventSocket(websocket, opened, state).serve()


async def _open(websocket: WebSocket) -> _Opened:
    """Who the socket reads for, and from where; the errors its SSE request would get."""
    app = await parts(websocket)
    _check_origin(websocket)
    thread_id: str = websocket.path_params["thread_id"]
    if not is_thread_id(thread_id):
        problem = {"field": "path.thread_id", "message": "must be 1-128 of A-Z a-z 0-9 . _ : @ -"}
        raise FrameRefused(422, invalid_request_body([problem]))
    headers, query = websocket.headers, websocket.query_params
    reader = await stream_reader(
        websocket,
        thread_id,
        app,
        query.get(TICKET_PARAM),
        headers.get(TENANT_HEADER),
        headers.get(USER_HEADER),
    )
    cursor = replay_cursor(headers.get(LAST_EVENT_ID), query.get(QUERY_CURSOR))
    thread = await app.threads.ensure(reader.owner, thread_id)
    return _Opened(app.events, reader, thread.id, cursor)


def _check_origin(websocket: WebSocket) -> None:
    settings = websocket.app.state.runyard.settings
    origin = websocket.headers.get("origin")
    allowed = parse_origins(settings.cors_origins)
    if not socket_origin_allowed(origin, websocket.headers.get("host"), allowed, settings.auth):
        message = f"pages from {origin} may not open this socket (RUNYARD_CORS_ORIGINS)"
        raise FrameRefused(403, error_body("origin_forbidden", message))


def _error_frame(state: AppState, kind: str | None, status: int, body: dict[str, Any]) -> str:
    frame = {"type": "error", "for": kind, "status": status, **body}
    return json.dumps(state.redactor.redact_data(frame), separators=(",", ":"))


class _EventSocket:
    """One open socket: events out, commands in, until either side ends it."""

    def __init__(self, websocket: WebSocket, opened: _Opened, state: AppState) -> None:
        self._websocket = websocket
        self._opened = opened
        self._state = state
        self._sending = asyncio.Lock()
        """Events and answers go out from two tasks; one frame at a time."""
        self._closed = False
        """The server closed the socket: nothing more is sent or read."""
        self._carrying_out = False
        """A command is being carried out (and must not be cancelled)."""

    async def serve(self) -> None:
        """Send events and answer commands until the client leaves or the events end.

        A command being carried out is never cut short (an HTTP request is not either when its
        client leaves): the socket waits for it, and its answer goes nowhere if the socket
        closed meanwhile. Only a wait for the next command is cancelled."""
        events = asyncio.create_task(self._send_events())
        commands = asyncio.create_task(self._answer_commands())
        await asyncio.wait({events, commands}, return_when=asyncio.FIRST_COMPLETED)
        events.cancel()
        (ending,) = await asyncio.gather(events, return_exceptions=True)
        if isinstance(ending, tuple):
            await self._close(*ending)
        if not self._carrying_out:
            commands.cancel()
        (answered,) = await asyncio.gather(commands, return_exceptions=True)
        for result in (ending, answered):
            if isinstance(result, Exception) and not _gone(result):
                raise result

    async def _close(self, code: int, reason: str) -> None:
        async with self._sending:
            self._closed = True
            with contextlib.suppress(WebSocketDisconnect, OSError, RuntimeError):
                await self._websocket.close(code, reason)

    async def _send_events(self) -> tuple[int, str]:
        """Every event after the cursor, one frame each; how the socket closes when they end."""
        state, opened = self._state, self._opened
        batches = event_batches(
            opened.events,
            opened.thread_key,
            opened.cursor,
            state.sse_ping_seconds,
            state.shutdown,
            state.sse_follow,
        )
        async with contextlib.aclosing(batches):
            async for batch in batches:
                if isinstance(batch, ServerGoingAway):
                    return CLOSE_SERVER_GOING_AWAY
                for event in batch:  # an idle stream's empty batch: the protocol pings itself
                    await self._send(event_message(event))
        return CLOSE_DATABASE_AWAY if state.sse_follow else CLOSE_END_OF_LOG

    async def _answer_commands(self) -> None:
        """Answer each client frame in turn (so answers come in the order asked) until it leaves."""
        while not self._closed:
            message = await self._websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            self._carrying_out = True
            try:
                answer = await self._answer(message.get("text"))
            finally:
                self._carrying_out = False
            await self._send(answer)

    async def _answer(self, text: str | None) -> str:
        kind = None
        try:
            command = parse_command(text, self._state.settings.max_body_bytes)
            kind = command.kind
            done = await self._carry_out(command)
        except Exception as exc:  # every failure is told to the client, never a crash
            status, body = refusal(exc)
            if isinstance(exc, FrameRefused):
                kind = kind or exc.kind
            return _error_frame(self._state, kind, status, body)
        return json.dumps({"type": "ack", "for": kind, **done}, separators=(",", ":"))

    async def _carry_out(self, command: Command) -> dict[str, Any]:
        """The command done by its HTTP route's function; the body that route answers."""
        app = await parts(self._websocket)
        owner = await self._owner(app)
        thread_id = self._opened.reader.thread_id
        if isinstance(command, Send):
            started = await chat.chat(thread_id, command.body, owner, app)
            return started.model_dump()
        if isinstance(command, Confirm):
            answered = await chat.confirm(command.request_id, command.body, owner, app)
            return answered.model_dump()
        assert isinstance(command, Cancel)
        return (await chat.cancel(thread_id, owner, app)).model_dump()

    async def _owner(self, app: Parts) -> Owner:
        """Whom a command acts for, checked again now (a key revoked since the socket opened
        is refused, as on HTTP); a ticket's socket reads and commands nothing."""
        if self._opened.reader.by_ticket:
            raise FrameRefused(403, error_body("ticket_read_only", _TICKET_READ_ONLY))
        headers = self._websocket.headers
        caller = await request_caller(
            self._websocket, app, headers.get(TENANT_HEADER), headers.get(USER_HEADER)
        )
        return caller.owner

    async def _send(self, text: str) -> None:
        async with self._sending:
            if not self._closed:
                await self._websocket.send_text(text)


def _gone(exc: BaseException) -> bool:
    """The client went away mid-send: nothing to report."""
    return isinstance(exc, WebSocketDisconnect | OSError | asyncio.CancelledError)
