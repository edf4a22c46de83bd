"""``/mcp``: the MCP server face's endpoint (streamable HTTP: ``POST`` messages, ``GET`` the
session's stream, ``DELETE`` the session), and ``McpFace``, which starts the MCP server on the
first request and stops it with the app.

The app's dependencies decide the caller first, as for ``/v1`` (401 without a valid key under
``RUNYARD_AUTH=keys``, 503 while starting or stopping); the request then goes to the ``mcp``
package's session manager with its caller (``McpCaller``). ``mcp`` costs seconds to import, so
it is imported (off the event loop) when the first ``/mcp`` request arrives, not when the app
starts: a server nobody asks over MCP never pays for it.

Draining: every ``/mcp`` request is counted as a long response; a running tool call ends when
the server goes away (its result names where to follow the run), and a session's ``GET``
stream is ended then, so the app's drain never waits on them.
"""

# Without ``from __future__ import annotations``: FastAPI reads the parameters' annotations,
# which name dependencies built inside ``router``.

import asyncio
import importlib
from collections.abc import Coroutine
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from runyard.faces.mcp.caller import McpCaller
from runyard.faces.wiring import FaceWiring
from runyard.service import Owner, ServiceParts

if TYPE_CHECKING:
    from runyard.faces.mcp.server import McpServer

__all__ = ["MCP_PATH", "McpFace"]

MCP_PATH = "/mcp"
_METHODS = ("POST", "GET", "DELETE")


class JsonRpcMessage(BaseModel):
    """One JSON-RPC 2.0 message of the Model Context Protocol: a request (``id`` and
    ``method``), a notification (``method`` alone) or a response (``id`` and ``result`` or
    ``error``); documentation only, the ``mcp`` package reads the messages."""

    model_config = ConfigDict(extra="allow")

    jsonrpc: Literal["2.0"]
    id: str | int | None = None
    method: str | None = None
    params: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


_JSON_RPC = {"$ref": "#/components/schemas/JsonRpcMessage"}
_SSE_MESSAGE: dict[str, Any] = {
    "type": "object",
    "required": ["data"],
    "properties": {
        "event": {"const": "message"},
        "id": {"type": "string"},
        "data": {"type": "string", "contentMediaType": "application/json"},
    },
}
_SESSION_HEADER = {
    "Mcp-Session-Id": {
        "description": "the session an `initialize` opened (handshake-era protocol versions): "
        "send it on the session's later requests",
        "schema": {"type": "string"},
    }
}


def _refusal(description: str) -> dict[str, Any]:
    """One of the transport's refusals: a JSON-RPC error."""
    return {"description": description, "model": JsonRpcMessage}


_MCP_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {
        "description": "not an MCP message this endpoint can take (a JSON-RPC error: parse "
        "error, invalid request, no session id, an unsupported protocol version), or a runyard "
        "identity header refused as on /v1",
        "content": {
            "application/json": {
                "schema": {"anyOf": [{"$ref": "#/components/schemas/ErrorBody"}, _JSON_RPC]}
            }
        },
    },
    404: _refusal("no such session (ended, expired, or another caller's)"),
    405: {"description": "GET or DELETE from a 2026-07-28 client: that protocol has no sessions"},
    406: _refusal("`Accept` must list application/json and text/event-stream"),
    409: _refusal("the session's GET stream is open already"),
    413: _refusal("the message is larger than MCP's 4 MiB"),
    415: _refusal("the body must be application/json"),
}


def _operation(
    summary: str, ok: dict[int | str, Any], errors: dict[int | str, Any]
) -> dict[str, Any]:
    return {
        "summary": summary,
        "response_class": Response,
        "responses": {**ok, **_MCP_ERRORS, **errors},
    }


_UNSUPPORTED = JSONResponse(
    {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Unsupported Media Type: send application/json"},
    },
    status_code=415,
)


class McpFace:
    """The MCP face of one app: ``router`` serves ``/mcp``; ``aclose`` stops its server."""

    def __init__(self, wiring: FaceWiring) -> None:
        self.wiring = wiring
        self.router = self._router()
        self._server: McpServer | None = None
        self._starting = asyncio.Lock()
        self._stop = asyncio.Event()
        self._owner: asyncio.Task[None] | None = None

    async def aclose(self) -> None:
        """Stop the MCP server (its sessions end), if a request started it; the face can start
        again after (an app's lifespan may run again)."""
        owner = self._owner
        if owner is not None:
            self._stop.set()
            await owner
        self._server, self._owner = None, None
        self._starting, self._stop = asyncio.Lock(), asyncio.Event()

    async def _started(self) -> "McpServer":
        async with self._starting:
            if self._server is None:
                built = await asyncio.to_thread(importlib.import_module, "runyard.faces.mcp.server")
                server: McpServer = built.McpServer()
                ready = asyncio.Event()
                self._owner = asyncio.create_task(self._own(server, ready), name="mcp server")
                waiting = asyncio.ensure_future(ready.wait())
                await asyncio.wait({waiting, self._owner}, return_when=asyncio.FIRST_COMPLETED)
                waiting.cancel()
                if not ready.is_set():
                    await self._owner  # raises what stopped it
                self._server = server
            return self._server

    async def _own(self, server: "McpServer", ready: asyncio.Event) -> None:
        """Hold the server's session manager open until ``aclose``: the task that enters its
        task group must be the one to leave it."""
        async with server.running():
            ready.set()
            await self._stop.wait()

    def _router(self) -> APIRouter:
        api = APIRouter(tags=["faces"])
        parts_dep = Annotated[ServiceParts, Depends(self.wiring.parts)]
        owner_dep = Annotated[Owner, Depends(self.wiring.owner)]
        errors = self.wiring.errors(401, 503)

        async def mcp(request: Request, parts: parts_dep, owner: owner_dep) -> Response:
            """The MCP streamable HTTP transport (docs/faces.md, MCP)."""
            server = await self._started()
            return _McpExchange(server, parts, owner, self.wiring.stream(request))

        post: dict[int | str, Any] = {
            200: {
                "description": "the answer to a request: one JSON-RPC response as JSON, or "
                "Server-Sent Events carrying the call's progress notifications (and, for a "
                "2025 session, its elicitation requests) before the response",
                "headers": _SESSION_HEADER,
                "content": {
                    "application/json": {"schema": _JSON_RPC},
                    "text/event-stream": {"schema": _SSE_MESSAGE},
                },
            },
            202: {"description": "a notification or a response to the server, accepted"},
        }
        stream: dict[int | str, Any] = {
            200: {
                "description": "the session's stream of server messages (Server-Sent Events); "
                "ended when the server goes away",
                "content": {"text/event-stream": {"schema": _SSE_MESSAGE}},
            }
        }
        ended: dict[int | str, Any] = {200: {"description": "the session ended"}}
        # One route serves every method, so a method it does not take is answered with all
        # three in ``Allow``; the three below only document each (this one matches first).
        api.add_api_route(
            MCP_PATH, mcp, methods=list(_METHODS), response_class=Response, include_in_schema=False
        )
        api.add_api_route(
            MCP_PATH,
            mcp,
            methods=["POST"],
            openapi_extra={
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _JSON_RPC}},
                }
            },
            **_operation("Send an MCP message (the agents are its tools)", post, errors),
        )
        api.add_api_route(
            MCP_PATH,
            mcp,
            methods=["GET"],
            **_operation("Open the session's stream", stream, errors),
        )
        api.add_api_route(
            MCP_PATH, mcp, methods=["DELETE"], **_operation("End the session", ended, errors)
        )
        return api


class _McpExchange(Response):
    """Hands the request to the MCP server, counted for the app's drain; a ``GET`` stream ends
    when the server goes away."""

    def __init__(
        self,
        server: "McpServer",
        parts: ServiceParts,
        owner: Owner,
        counted: AbstractContextManager[asyncio.Event],
    ) -> None:
        self.server = server
        self.parts = parts
        self.owner = owner
        self.counted = counted
        self.background = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] == "POST" and not _is_json(Headers(scope=scope)):
            # Refused here rather than by mcp, whose answer has no content type.
            await _UNSUPPORTED(scope, receive, send)
            return
        with self.counted as going_away:
            caller = McpCaller(self.parts, self.owner, going_away)
            serving = self.server.handle(scope, receive, send, caller)
            if scope["method"] == "GET":
                await _until_set(going_away, serving)
            else:
                await serving


def _is_json(headers: Headers) -> bool:
    return headers.get("content-type", "").split(";")[0].strip().lower() == "application/json"


async def _until_set(event: asyncio.Event, serving: Coroutine[Any, Any, None]) -> None:
    """Run ``serving`` until it ends or ``event`` is set."""
    task = asyncio.ensure_future(serving)
    waiting = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for each in (task, waiting):
            each.cancel()
        await asyncio.gather(task, waiting, return_exceptions=True)
