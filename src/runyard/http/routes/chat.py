"""``POST /v1/chat/{threadId}``, ``POST /v1/chat/{threadId}/cancel``, ``POST /v1/confirm/{requestId}``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from runyard.http.identity import request_owner
from runyard.http.openapi import error_responses
from runyard.http.routes.params import RequestId, ThreadId
from runyard.http.routes.schemas import ChatRequest, ChatResponse, ConfirmRequest, OkResponse
from runyard.http.state import Parts, parts
from runyard.service import Owner

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["runs"])

OwnerDep = Annotated[Owner, Depends(request_owner)]
PartsDep = Annotated[Parts, Depends(parts)]


@router.post(
    "/chat/{thread_id}",
    response_model=ChatResponse,
    responses=error_responses(400, 401, 404, 409, 413, 422, 429, 503),
)
async def chat(
    thread_id: ThreadId, body: ChatRequest, owner: OwnerDep, app: PartsDep
) -> ChatResponse:
    """Start a run for the message; events arrive on ``GET /v1/events/{threadId}``.

    A new thread's agent is ``agentId``, else the one the catalog's routing chooses from
    ``context``; a thread keeps its agent unless ``agentId`` names another."""
    context = body.context.fields() if body.context is not None else None
    run_id = await app.runs.start(
        owner,
        thread_id,
        body.message,
        agent=body.agent_id(),
        context=context,
        content=body.content,
        entry="http",
    )
    return ChatResponse(runId=run_id)


@router.post(
    "/chat/{thread_id}/cancel",
    response_model=OkResponse,
    responses=error_responses(400, 401, 409, 422, 503),
)
async def cancel(thread_id: ThreadId, owner: OwnerDep, app: PartsDep) -> OkResponse:
    """Cancel the thread's run (idempotent: nothing to cancel is fine), whichever replica
    drives it; answers once the run has ended, or after at most 10 s (the cancel stays
    recorded and is honoured). 409 ``run_busy`` only when a confirm crossed the cancel."""
    await app.runs.cancel(owner, thread_id)
    return OkResponse()


@router.post(
    "/confirm/{request_id}",
    response_model=OkResponse,
    responses=error_responses(400, 401, 404, 409, 410, 413, 422, 503),
)
async def confirm(
    request_id: RequestId, body: ConfirmRequest, owner: OwnerDep, app: PartsDep
) -> OkResponse:
    """Answer a confirmation request once; the run resumes and streams on."""
    await app.runs.confirm(owner, request_id, body.answer())
    return OkResponse()
