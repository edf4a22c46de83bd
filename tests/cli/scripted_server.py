"""A tiny runyard look-alike for client tests: scripted events over real SSE on a real socket.

It serves one run's events and can drop the first SSE connection after a few frames, or replay
one frame the client has already seen, so the client's reconnect and de-duplication can be
observed from the server side (which ``Last-Event-ID`` each connection sent).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

RUN_ID = "run_scripted"
AGENT_ID = "agent_root"


def reply_events(words: list[str]) -> list[dict[str, Any]]:
    """A run that reasons briefly, then streams ``words`` as text deltas, then completes."""
    events: list[dict[str, Any]] = [_event("run-start", {"messageId": "msg_1"})]
    events.append(_event("reasoning-delta", {"text": "Thinking it over."}))
    events += [_event("text-delta", {"text": word}) for word in words]
    events.append(_event("run-finish", {"status": "completed"}))
    return events


def confirmation_events(request: dict[str, Any], *, approved_result: Any) -> list[dict[str, Any]]:
    """A run whose tool call ``ask`` waits for the user, then succeeds (or is denied) and completes.

    The scripted server holds the stream after the ``confirmation-request`` until it is answered,
    and sends the tool's result or a ``denied`` error depending on the answer.
    """
    call = {"toolCallId": "tc_1", "toolName": "ask", "args": {"topic": "colours"}}
    return [
        _event("run-start", {"messageId": "msg_1"}),
        _event("tool-call", call),
        _event("confirmation-request", {"requestId": "cr_1", **call, **request}),
        _event("tool-result", {"toolCallId": "tc_1", "result": approved_result}),
        _event("text-delta", {"text": "Done."}),
        _event("run-finish", {"status": "completed"}),
    ]


def _event(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "runId": RUN_ID, "agentId": AGENT_ID, "payload": payload}


class DroppedConnection(Exception):
    """Raised inside the SSE body to cut the connection mid-stream."""


@dataclass
class ScriptedServer:
    """The script: ``events`` get ids 1…n; the first connection ends after ``drop_after`` frames."""

    events: list[dict[str, Any]]
    drop_after: int | None = None
    replay_overlap: bool = False
    chat_status: int = 200
    cursors: list[str | None] = field(default_factory=list)
    posted: list[dict[str, Any]] = field(default_factory=list)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    url: str = ""

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/v1/chat/{thread}", self._chat, methods=["POST"]),
                Route("/v1/threads/{thread}/messages", self._messages, methods=["GET"]),
                Route("/v1/events/{thread}", self._events, methods=["GET"]),
                Route("/v1/confirm/{request}", self._confirm, methods=["POST"]),
                Route("/v1/chat/{thread}/cancel", self._cancel, methods=["POST"]),
            ]
        )

    async def _chat(self, request: Request) -> Response:
        self.posted.append(await request.json())
        if self.chat_status != 200:
            detail = "a run is active on this thread"
            return JSONResponse({"detail": detail}, status_code=self.chat_status)
        return JSONResponse({"runId": RUN_ID})

    async def _confirm(self, request: Request) -> Response:
        self.answers[request.path_params["request"]] = await request.json()
        self.answered.set()
        return JSONResponse({"ok": True})

    async def _cancel(self, _request: Request) -> Response:
        return JSONResponse({"ok": True})

    async def _messages(self, _request: Request) -> Response:
        return JSONResponse({"detail": "thread not found"}, status_code=404)

    async def _events(self, request: Request) -> Response:
        cursor = request.headers.get("last-event-id")
        self.cursors.append(cursor)
        first = len(self.cursors) == 1
        start = int(cursor) if cursor else 0
        if self.replay_overlap and not first and start > 0:
            start -= 1  # resend the last frame the client saw: it must not show it twice
        limit = self.drop_after if first else None
        return StreamingResponse(self._frames(start, limit), media_type="text/event-stream")

    async def _frames(self, start: int, limit: int | None) -> AsyncIterator[str]:
        yield ": ping\n\n"
        for number, event in enumerate(self.events[start:], start + 1):
            if limit is not None and number - start > limit:
                raise DroppedConnection
            # Split each frame in two writes, so frames straddle network reads.
            if event["type"] == "tool-result" and not self.answers.get("cr_1", {}).get("approved"):
                event = _event("tool-error", {"toolCallId": "tc_1", "error": "denied"})
            frame = f"id: {number}\ndata: {json.dumps(event)}\n\n"
            yield frame[:7]
            yield frame[7:]
            if event["type"] == "confirmation-request":
                await self.answered.wait()
            await asyncio.sleep(0)
        # Stay open like a live stream until the client leaves.
        await asyncio.Event().wait()


@contextmanager
def serving(script: ScriptedServer) -> Iterator[ScriptedServer]:
    """Run ``script`` on a free port of 127.0.0.1 in a thread; sets ``script.url``."""
    config = uvicorn.Config(
        script.app(), host="127.0.0.1", port=0, log_level="critical", timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the scripted server did not start")
        threading.Event().wait(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    script.url = f"http://127.0.0.1:{port}"
    try:
        yield script
    finally:
        server.should_exit = True
        thread.join(timeout=10)
