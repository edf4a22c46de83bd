"""``/langgraph/threads/{thread_id}/runs``: runs started the LangGraph way — ``runs.stream``,
``runs.wait``, ``runs.create`` (in the background) — and their stateless twins under
``/langgraph/runs`` (a new thread each, kept as any thread). The run is an ordinary runyard run
(``open_run``); reading, joining and cancelling it: ``run_reads``.

``on_disconnect`` ``cancel`` cancels the run when the client leaves before its end; the default,
``continue``, lets it go on (rejoin it with ``runs.join_stream``).
"""

# Without ``from __future__ import annotations``: FastAPI reads the parameters' annotations,
# which name dependencies built inside ``run_routes``.

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from runyard.faces.face_stream import stream_operation
from runyard.faces.langgraph.error_shape import langgraph_errors
from runyard.faces.langgraph.path_ids import ThreadId
from runyard.faces.langgraph.run_answers import run_body, run_headers, run_stream, run_waited
from runyard.faces.langgraph.run_request import RunCreate
from runyard.faces.langgraph.run_start import OpenedRun, open_run
from runyard.faces.langgraph.stream_parts import StreamParts
from runyard.faces.wiring import FaceWiring
from runyard.service import Owner, ServiceParts
from runyard.storage import RunRecord

__all__ = ["run_routes"]

_STREAM = (
    "Server-Sent Events named as LangGraph Server names them: `metadata` first, then per "
    "`stream_mode` `values`, `updates`, `messages` (messages-tuple), `messages/metadata|partial|"
    "complete` (messages), `custom`, `events`; `error` when the run fails; `end` last. Each "
    "frame of a run event has an `id:` to reconnect with (`Last-Event-ID`). docs/langgraph.md"
)
_FRAME = "one LangGraph stream part (JSON) of the frame's `event:`"


def run_routes(api: APIRouter, wiring: FaceWiring) -> None:
    """Add the routes that start runs to ``api``."""
    parts_dep = Annotated[ServiceParts, Depends(wiring.parts)]
    owner_dep = Annotated[Owner, Depends(wiring.owner)]
    errors = langgraph_errors(wiring.errors)(400, 401, 404, 409, 410, 422, 429, 503)
    streaming = stream_operation(langgraph_errors(wiring.errors), _STREAM, _FRAME)

    async def stream(
        thread_id: str, body: RunCreate, request: Request, parts: ServiceParts, owner: Owner
    ) -> Any:
        modes = body.modes()
        opened = await open_run(parts, owner, thread_id, body)
        mapped = _parts(opened, thread_id, body, modes)
        leave = body.on_disconnect == "cancel"
        return run_stream(opened.run, mapped, wiring.stream(request), leave)

    async def wait(
        thread_id: str, body: RunCreate, request: Request, parts: ServiceParts, owner: Owner
    ) -> Any:
        opened = await open_run(parts, owner, thread_id, body)
        mapped = _parts(opened, thread_id, body, ["values"])
        leave = body.on_disconnect == "cancel"
        return run_waited(opened.run, mapped, wiring.stream(request), leave)

    @api.post("/threads/{thread_id:langgraph_name}/runs/stream", **streaming)
    async def stream_run(
        thread_id: ThreadId, body: RunCreate, request: Request, parts: parts_dep, owner: owner_dep
    ) -> Any:
        """Start the run (or resume it with ``command.resume``) and stream it."""
        return await stream(thread_id, body, request, parts, owner)

    @api.post("/runs/stream", **streaming)
    async def stream_stateless(
        body: RunCreate, request: Request, parts: parts_dep, owner: owner_dep
    ) -> Any:
        """``runs.stream`` without a thread: the run gets a new one (kept, as any thread)."""
        return await stream(str(uuid.uuid4()), body, request, parts, owner)

    @api.post(
        "/threads/{thread_id:langgraph_name}/runs/wait", response_model=None, responses=errors
    )
    async def wait_run(
        thread_id: ThreadId, body: RunCreate, request: Request, parts: parts_dep, owner: owner_dep
    ) -> Any:
        """Start the run (or resume it) and answer once it ends or waits: the thread's values
        (``__interrupt__`` while an approval waits, ``__error__`` when it failed)."""
        return await wait(thread_id, body, request, parts, owner)

    @api.post("/runs/wait", response_model=None, responses=errors)
    async def wait_stateless(
        body: RunCreate, request: Request, parts: parts_dep, owner: owner_dep
    ) -> Any:
        """``runs.wait`` without a thread: the run gets a new one."""
        return await wait(str(uuid.uuid4()), body, request, parts, owner)

    @api.post("/threads/{thread_id:langgraph_name}/runs", response_model=None, responses=errors)
    async def create_run(
        thread_id: ThreadId, body: RunCreate, parts: parts_dep, owner: owner_dep
    ) -> Any:
        """Start the run (or resume it) in the background: the ``Run``, at once."""
        opened = await open_run(parts, owner, thread_id, body)
        return _created(thread_id, await _record(parts, opened), body.modes())

    @api.post("/runs", response_model=None, responses=errors)
    async def create_stateless(body: RunCreate, parts: parts_dep, owner: owner_dep) -> Any:
        """``runs.create`` without a thread: the run gets a new one."""
        thread_id = str(uuid.uuid4())
        opened = await open_run(parts, owner, thread_id, body)
        return _created(thread_id, await _record(parts, opened), body.modes())


async def _record(parts: ServiceParts, opened: OpenedRun) -> RunRecord:
    record = await parts.store.get_run(opened.run.followed.run_id)
    assert record is not None  # it was just started
    return record


def _created(thread_id: str, record: RunRecord, modes: list[str]) -> JSONResponse:
    headers = run_headers(thread_id, record.run_id, modes)
    return JSONResponse(run_body(thread_id, record), headers=headers)


def _parts(opened: OpenedRun, thread_id: str, body: RunCreate, modes: list[str]) -> StreamParts:
    run_id = opened.run.followed.run_id
    return StreamParts(run_id, thread_id, body.assistant_id, modes, opened.values)
