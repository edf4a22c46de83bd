"""``/langgraph/threads/{thread_id}/runs/{run_id:langgraph_run}``: a run's ``Run`` object, the thread's runs,
``runs.join`` (its outcome once it ends or waits), ``runs.join_stream`` (its stream again, from
``Last-Event-ID`` when given, else from now) and ``runs.cancel``.

A run is a runyard run of the thread (its ``run_id`` as on ``/v1``); another thread's, or another
user's, is 404. ``cancel`` cancels the thread's open run, as ``POST /v1/chat/{threadId}/cancel``
(``action`` ``rollback`` is refused: runyard keeps every run in the thread's log).
"""

# Without ``from __future__ import annotations``: FastAPI reads the parameters' annotations,
# which name dependencies built inside ``run_read_routes``.

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Query, Request

from runyard.faces.face_runs import FaceRun
from runyard.faces.face_stream import stream_operation
from runyard.faces.invalid_body import invalid_field
from runyard.faces.langgraph.error_shape import langgraph_errors
from runyard.faces.langgraph.path_ids import RunId, ThreadId
from runyard.faces.langgraph.refusals import RunNotFound
from runyard.faces.langgraph.run_answers import run_body, run_stream, run_waited
from runyard.faces.langgraph.run_request import STREAM_MODES
from runyard.faces.langgraph.run_start import stream_values
from runyard.faces.langgraph.stream_parts import StreamParts
from runyard.faces.wiring import FaceWiring
from runyard.service import FollowedRun, Owner, ServiceParts, Threads
from runyard.storage import RunRecord

__all__ = ["run_read_routes"]

LastEventId = Annotated[
    str | None,
    Header(
        alias="Last-Event-ID",
        pattern=r"^[0-9]{1,18}$",
        description="the `id` of the last frame received: the stream goes on after it",
    ),
]
_MOST_SNAPSHOTS = 2**31
"""A page past this many runs is past every thread's runs (and ``offset`` is unbounded)."""
_REJOIN = (
    "The run's stream again, as `runs.stream` sends it: after `Last-Event-ID` when given "
    "(what was missed is sent again, without `metadata`, which the client had), else from now "
    "(`metadata` first); `end` last"
)


async def owned_run(parts: ServiceParts, owner: Owner, thread_id: str, run_id: str) -> RunRecord:
    """The run ``run_id`` of the caller's thread; 404 otherwise."""
    thread = await Threads(parts.events, parts.store).get(owner, thread_id)
    record = await parts.store.get_run(run_id)
    if record is None or record.thread_id != thread.id:
        raise RunNotFound(thread_id, run_id)
    return record


async def _run_ids(parts: ServiceParts, thread_key: str, offset: int, limit: int) -> list[str]:
    """The thread's runs ``offset`` to ``offset + limit``, newest first: those of the log after
    its run snapshots (by their ``run-start``), then the snapshots' runs, newest first; only as
    many snapshots as the page needs are read, and none of the log they cover."""
    mark = await parts.store.last_snapshot_event_id(thread_key)
    tail = await parts.store.read_events(thread_key, after_id=mark)
    started = [e.run_id for e in tail if e.type == "run-start" and e.run_id]
    ids = list(dict.fromkeys(reversed(started)))
    wanted = offset + limit - len(ids)
    if wanted > 0 and mark:
        snapshots = await parts.store.read_run_snapshots(
            thread_key, limit=min(wanted, _MOST_SNAPSHOTS)
        )
        ids += [s.run_id for s in reversed(snapshots)]
    return ids[offset : offset + limit]


async def _rejoined(
    parts: ServiceParts,
    owner: Owner,
    thread_id: str,
    run_id: str,
    after: str | None,
    modes: list[str],
) -> tuple[FaceRun, StreamParts]:
    """The run followed from ``after`` (a log id), else from the thread's log end now, and its
    mapping onto ``modes`` from there."""
    record = await owned_run(parts, owner, thread_id, run_id)
    cursor = int(after) if after is not None else await parts.store.last_event_id(record.thread_id)
    run = FaceRun(parts, owner, thread_id, FollowedRun(record.thread_id, run_id, cursor))
    values = await stream_values(parts, owner, thread_id, cursor)
    agent = record.agent_id or ""
    return run, StreamParts(run_id, thread_id, agent, modes, values, resumed=after is not None)


def _modes(given: list[str] | None) -> list[str]:
    """The stream modes of a rejoin (default: ``values``); 422 naming ``stream_mode``."""
    asked = [m for m in given or [] if m]
    for mode in asked:
        if mode not in STREAM_MODES:
            raise invalid_field("stream_mode", f"{mode!r} is not a stream mode runyard sends")
    return asked or ["values"]


def run_read_routes(api: APIRouter, wiring: FaceWiring) -> None:
    """Add the routes that read, join and cancel runs to ``api``."""
    parts_dep = Annotated[ServiceParts, Depends(wiring.parts)]
    owner_dep = Annotated[Owner, Depends(wiring.owner)]
    errors = langgraph_errors(wiring.errors)(400, 401, 404, 409, 422, 503)
    rejoin = stream_operation(
        langgraph_errors(wiring.errors), _REJOIN, "one LangGraph stream part (JSON)"
    )

    @api.get("/threads/{thread_id:langgraph_name}/runs", responses=errors)
    async def list_runs(
        thread_id: ThreadId,
        parts: parts_dep,
        owner: owner_dep,
        limit: Annotated[int, Query(ge=1, le=1000)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> list[dict[str, Any]]:
        """The thread's runs, newest first."""
        thread = await Threads(parts.events, parts.store).get(owner, thread_id)
        ids = await _run_ids(parts, thread.id, offset, limit)
        records = [await parts.store.get_run(run_id) for run_id in ids]
        return [run_body(thread_id, r) for r in records if r is not None]

    @api.get("/threads/{thread_id:langgraph_name}/runs/{run_id:langgraph_run}", responses=errors)
    async def get_run(
        thread_id: ThreadId, run_id: RunId, parts: parts_dep, owner: owner_dep
    ) -> dict[str, Any]:
        """The ``Run``: ``status`` ``pending``, ``running``, ``interrupted`` (waiting for an
        answer, or cancelled), ``success`` or ``error``."""
        return run_body(thread_id, await owned_run(parts, owner, thread_id, run_id))

    @api.get(
        "/threads/{thread_id:langgraph_name}/runs/{run_id:langgraph_run}/join",
        response_model=None,
        responses=errors,
    )
    async def join_run(
        thread_id: ThreadId, run_id: RunId, request: Request, parts: parts_dep, owner: owner_dep
    ) -> Any:
        """Wait for the run to end or wait: the thread's values, as ``runs.wait`` answers."""
        run, mapped = await _rejoined(parts, owner, thread_id, run_id, None, ["values"])
        return run_waited(run, mapped, wiring.stream(request), cancel_on_leave=False)

    @api.get("/threads/{thread_id:langgraph_name}/runs/{run_id:langgraph_run}/stream", **rejoin)
    async def join_stream(
        thread_id: ThreadId,
        run_id: RunId,
        request: Request,
        parts: parts_dep,
        owner: owner_dep,
        last_event_id: LastEventId = None,
        stream_mode: Annotated[list[str] | None, Query()] = None,
        cancel_on_disconnect: bool = False,
    ) -> Any:
        """Follow the run's stream (again), after ``Last-Event-ID`` when given."""
        modes = _modes(stream_mode)
        run, mapped = await _rejoined(parts, owner, thread_id, run_id, last_event_id, modes)
        return run_stream(run, mapped, wiring.stream(request), cancel_on_disconnect)

    @api.post(
        "/threads/{thread_id:langgraph_name}/runs/{run_id:langgraph_run}/cancel",
        response_model=None,
        responses=errors,
    )
    async def cancel_run(
        thread_id: ThreadId,
        run_id: RunId,
        parts: parts_dep,
        owner: owner_dep,
        wait: Annotated[int, Query(ge=0, le=1)] = 0,
        action: Literal["interrupt", "rollback"] = "interrupt",
    ) -> Any:
        """Cancel the run (``run-finish`` ``cancelled``); idempotent for a run that ended. It
        answers once the run has ended, as ``/v1``'s cancel does."""
        if action == "rollback":
            raise invalid_field("action", "`rollback` is refused: runyard keeps every run")
        record = await owned_run(parts, owner, thread_id, run_id)
        active = await parts.store.get_active_run(record.thread_id)
        if active is not None and active.run_id == run_id:
            await parts.runs.cancel(owner, thread_id)
        return run_body(thread_id, await owned_run(parts, owner, thread_id, run_id))
