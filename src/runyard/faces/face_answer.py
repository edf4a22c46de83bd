"""``FaceAnswer``: a face's answer as one JSON body, made while its run goes on, that cancels the
run when the client goes away before it is ready (a request timeout, a closed connection) —
what ``FaceStream`` does for a stream, for a client that asked for no stream."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from contextlib import AbstractContextManager
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from runyard.faces.face_stream import client_left

__all__ = ["FaceAnswer"]

Answer = Callable[[asyncio.Event], Coroutine[Any, Any, tuple[int, Any]]]
"""Makes the status and JSON body; the event it is given is set when the server goes away."""


class FaceAnswer(Response):
    """Sends what ``answer`` makes; a client that leaves before calls ``abandoned``.

    ``counted`` is entered for the response's whole life (the app's drain waits for it) and
    gives the going-away event ``answer`` is made with.
    """

    media_type = "application/json"

    def __init__(
        self,
        answer: Answer,
        counted: AbstractContextManager[asyncio.Event],
        abandoned: Callable[[], Awaitable[None]],
        headers: Mapping[str, str],
    ) -> None:
        self.answer = answer
        self.counted = counted
        self.abandoned = abandoned
        self.status_code = 200
        self.background = None
        self.extra = dict(headers)
        self.raw_headers = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with self.counted as going_away:
            answering = asyncio.create_task(self.answer(going_away))
            watching = asyncio.create_task(client_left(receive))
            await asyncio.wait({answering, watching}, return_when=asyncio.FIRST_COMPLETED)
            for task in (answering, watching):
                task.cancel()
            made, _ = await asyncio.gather(answering, watching, return_exceptions=True)
            if isinstance(made, asyncio.CancelledError):
                await self.abandoned()
                return
            if isinstance(made, BaseException):
                raise made
        status, value = made
        body = json.dumps(value, separators=(",", ":")).encode()
        headers = {
            "content-type": "application/json",
            "content-length": str(len(body)),
            **self.extra,
        }
        raw = [(k.encode(), v.encode()) for k, v in headers.items()]
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": body, "more_body": False})
