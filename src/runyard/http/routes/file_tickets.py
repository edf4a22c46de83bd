"""``POST /v1/files/{fileId}/ticket``: served only with ``RUNYARD_AUTH=keys``.

An ``<img src>``, an ``<audio>`` or a download link cannot send the API key; the URL this route
gives downloads one of the caller's files for a minute in its place
(``GET /v1/files/{fileId}?ticket=…``, docs/files.md). In the other modes a download needs no
credential a browser cannot send, so the route is not there (404).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from runyard.http.bodies import FileTicketBody
from runyard.http.errors import ApiError
from runyard.http.identity import TICKET_PARAM, UNAUTHENTICATED, Caller, request_caller
from runyard.http.openapi import error_responses
from runyard.http.routes.file_access import FilesDep
from runyard.http.routes.params import FileId
from runyard.http.state import Parts, parts
from runyard.service.api_keys import issue_file_ticket
from runyard.service.content import file_url

__all__ = ["router"]

router = APIRouter(prefix="/v1/files", tags=["files"])


@router.post(
    "/{file_id}/ticket",
    response_model=FileTicketBody,
    responses=error_responses(400, 401, 404, 422, 503),
)
async def file_ticket(
    file_id: FileId,
    files: FilesDep,
    caller: Annotated[Caller, Depends(request_caller)],
    app: Annotated[Parts, Depends(parts)],
) -> FileTicketBody:
    """A URL that downloads this file without the API key: the caller's own file only, one
    minute; the key's revocation or expiry ends it at once."""
    if await files.meta(file_id) is None:
        raise ApiError(404, "file_not_found", f"no file {file_id!r}", "path.file_id")
    key = None if caller.key_id is None else await app.store.get_api_key(caller.key_id)
    if key is None:  # revoked and deleted since the request was authenticated
        raise ApiError(
            401, "unauthenticated", UNAUTHENTICATED, headers={"WWW-Authenticate": "Bearer"}
        )
    ticket = issue_file_ticket(key, file_id)
    url = f"{file_url(file_id)}?{TICKET_PARAM}={ticket.token}"
    return FileTicketBody(url=url, expiresAt=ticket.expires_at)
