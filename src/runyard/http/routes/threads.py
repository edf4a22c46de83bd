"""Thread endpoints: list, rich messages with agent trees and ``nextEventId``, status, delete."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from runyard.http.bodies import ThreadList, ThreadMessages, ThreadStatusBody
from runyard.http.identity import request_owner
from runyard.http.openapi import error_responses
from runyard.http.routes.params import ThreadId
from runyard.http.routes.schemas import OkResponse
from runyard.http.state import Parts, parts
from runyard.service import Owner

__all__ = ["router"]

router = APIRouter(prefix="/v1/threads", tags=["threads"])

OwnerDep = Annotated[Owner, Depends(request_owner)]
PartsDep = Annotated[Parts, Depends(parts)]


@router.get(
    "",
    response_model=None,
    responses={200: {"model": ThreadList}, **error_responses(400, 401, 422, 503)},
)
async def list_threads(
    owner: OwnerDep, app: PartsDep, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> dict[str, Any]:
    """The caller's threads, most recently updated first."""
    return {"threads": await app.threads.list_threads(owner, limit=limit)}


@router.get(
    "/{thread_id}/messages",
    response_model=None,
    responses={200: {"model": ThreadMessages}, **error_responses(400, 401, 404, 422, 503)},
)
async def messages(
    thread_id: ThreadId,
    owner: OwnerDep,
    app: PartsDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[
        str | None,
        Query(
            pattern=r"^[0-9]{1,18}$",
            description="a `nextCursor` of an earlier page: the runs before it",
        ),
    ] = None,
) -> dict[str, Any]:
    """The newest whole runs' messages (at most ``limit``) with agent trees, and
    ``nextEventId`` for the SSE hand-off: connect with ``lastEventId = nextEventId - 1`` to see
    every later event exactly once. ``nextCursor``, while older runs remain, pages back."""
    at = None if cursor is None else int(cursor)
    return await app.threads.messages(owner, thread_id, limit=limit, cursor=at)


@router.get(
    "/{thread_id}/status",
    response_model=None,
    responses={200: {"model": ThreadStatusBody}, **error_responses(400, 401, 404, 422, 503)},
)
async def status(thread_id: ThreadId, owner: OwnerDep, app: PartsDep) -> dict[str, Any]:
    """``{hasActiveRun, isSuspended, runId?, backgroundTasks}``; 404 for an unknown thread."""
    return (await app.runs.status(owner, thread_id)).to_json()


@router.delete(
    "/{thread_id}",
    response_model=OkResponse,
    responses=error_responses(400, 401, 404, 409, 422, 503),
)
async def delete_thread(thread_id: ThreadId, owner: OwnerDep, app: PartsDep) -> OkResponse:
    """Cancel the thread's run, then delete the thread with its messages and events, and the
    uploaded files no other thread references."""
    await app.runs.delete_thread(owner, thread_id)
    return OkResponse()
