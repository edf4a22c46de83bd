"""Who reads a thread's event stream: the request's caller, or the holder of a stream ticket.

A browser's ``EventSource`` cannot send ``Authorization``; with ``RUNYARD_AUTH=keys`` it shows a
ticket (``POST /v1/threads/{threadId}/stream-ticket``) in ``?ticket=`` instead, good for that
thread only and for a minute (``runyard.service.api_keys.tickets``). The API key itself is
never accepted in a URL. The other modes need no ticket and ignore one (it is not in their
OpenAPI document): whoever they let in, a ticket would not change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Query
from starlette.requests import HTTPConnection

from runyard.http.errors import ApiError
from runyard.http.identity import (
    TENANT_HEADER,
    TICKET_PARAM,
    USER_HEADER,
    TenantHeader,
    UserHeader,
    refuse_identity_headers,
    request_caller,
)
from runyard.http.routes.params import ThreadId
from runyard.http.state import Parts, parts
from runyard.service import Owner
from runyard.service.api_keys import verify_stream_ticket

__all__ = ["StreamReader", "stream_reader"]

_BAD_TICKET = (
    "the stream ticket is malformed, expired, for another thread, or its key is no longer "
    "valid: ask POST /v1/threads/{threadId}/stream-ticket for a new one"
)


@dataclass(frozen=True, slots=True)
class StreamReader:
    """Whose thread ``thread_id`` (as the client wrote it) a stream reads."""

    owner: Owner
    thread_id: str
    by_ticket: bool = False
    """Let in by a stream ticket, which opens the thread's events and nothing else."""


async def stream_reader(
    request: HTTPConnection,
    thread_id: ThreadId,
    app: Annotated[Parts, Depends(parts)],
    ticket: Annotated[
        str | None,
        Query(
            alias=TICKET_PARAM,
            description="RUNYARD_AUTH=keys: a stream ticket for this thread "
            "(`POST /v1/threads/{threadId}/stream-ticket`), in place of the "
            "`Authorization` header an EventSource cannot send",
        ),
    ] = None,
    tenant: TenantHeader = None,
    user: UserHeader = None,
) -> StreamReader:
    """The thread the stream reads and its owner: the ticket's, when one is given. (The path's
    thread id is declared here, not on the route too, so a bad one is named once.)"""
    mode = request.app.state.runyard.settings.auth
    if ticket is None or mode != "keys":
        return StreamReader((await request_caller(request, app, tenant, user)).owner, thread_id)
    refuse_identity_headers(mode, ((TENANT_HEADER, tenant), (USER_HEADER, user)))
    identity = await verify_stream_ticket(app.store, ticket, thread_id)
    if identity is None:
        raise ApiError(401, "unauthenticated", _BAD_TICKET, headers={"WWW-Authenticate": "Bearer"})
    return StreamReader(identity.owner, thread_id, by_ticket=True)
