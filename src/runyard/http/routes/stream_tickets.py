"""``POST /v1/threads/{threadId}/stream-ticket``: served only with ``RUNYARD_AUTH=keys``.

A browser's ``EventSource`` cannot send the API key; the ticket this route gives opens one
thread's event stream for a minute in its place (``GET /v1/events/{threadId}?ticket=…``,
docs/security.md). In the other modes an event stream needs no credential a browser cannot
send, so the route is not there (404).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from runyard.http.bodies import StreamTicketBody
from runyard.http.errors import ApiError
from runyard.http.identity import UNAUTHENTICATED, Caller, request_caller
from runyard.http.openapi import error_responses
from runyard.http.routes.params import ThreadId
from runyard.http.state import Parts, parts
from runyard.service.api_keys import issue_stream_ticket

__all__ = ["router"]

router = APIRouter(prefix="/v1/threads", tags=["threads"])


@router.post(
    "/{thread_id}/stream-ticket",
    response_model=StreamTicketBody,
    responses=error_responses(400, 401, 422, 503),
)
async def stream_ticket(
    thread_id: ThreadId,
    caller: Annotated[Caller, Depends(request_caller)],
    app: Annotated[Parts, Depends(parts)],
) -> StreamTicketBody:
    """A ticket for ``GET /v1/events/{threadId}?ticket=…``: this thread, this key's user, one
    minute; the key's revocation or expiry ends it at once."""
    key = None if caller.key_id is None else await app.store.get_api_key(caller.key_id)
    if key is None:  # revoked and deleted since the request was authenticated
        raise ApiError(
            401, "unauthenticated", UNAUTHENTICATED, headers={"WWW-Authenticate": "Bearer"}
        )
    ticket = issue_stream_ticket(key, thread_id)
    return StreamTicketBody(ticket=ticket.token, expiresAt=ticket.expires_at)
