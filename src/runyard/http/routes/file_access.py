"""Whose files a request reaches: the caller's, or — for a download — the holder of a file ticket.

A browser cannot send ``Authorization`` from an ``<img src>`` or a link; with
``RUNYARD_AUTH=keys`` a download shows a ticket (``POST /v1/files/{fileId}/ticket``) in
``?ticket=`` instead, good for that one file and for a minute
(``runyard.service.api_keys.tickets``). The API key itself is never accepted in a URL. The other
modes need no ticket and ignore one (it is not in their OpenAPI document).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Query, Request

from runyard.config import Settings
from runyard.http.errors import ApiError
from runyard.http.identity import (
    TENANT_HEADER,
    TICKET_PARAM,
    USER_HEADER,
    TenantHeader,
    UserHeader,
    refuse_identity_headers,
    request_caller,
    request_owner,
)
from runyard.http.routes.params import FileId
from runyard.http.state import Parts, parts
from runyard.service import Owner
from runyard.service.api_keys import verify_file_ticket
from runyard.service.files import StoredFiles, files_for

__all__ = ["FileDownload", "FilesDep", "caller_files", "file_download", "files_of"]

_BAD_TICKET = (
    "the file ticket is malformed, expired, for another file, or its key is no longer valid: "
    "ask POST /v1/files/{fileId}/ticket for a new one"
)


def files_of(request: Request, app: Parts, owner: Owner) -> StoredFiles:
    """``owner``'s files, bounded by the app's limits."""
    settings: Settings = request.app.state.runyard.settings
    quota = settings.tenant_file_quota_bytes or None
    return files_for(app.store, max_bytes=settings.max_file_bytes, quota_bytes=quota)(owner)


async def caller_files(
    request: Request,
    owner: Annotated[Owner, Depends(request_owner)],
    app: Annotated[Parts, Depends(parts)],
) -> StoredFiles:
    """The caller's files."""
    return files_of(request, app, owner)


FilesDep = Annotated[StoredFiles, Depends(caller_files)]


@dataclass(frozen=True, slots=True)
class FileDownload:
    """The file a download asks for, among the files of whom it acts for."""

    files: StoredFiles
    file_id: str


async def file_download(
    request: Request,
    file_id: FileId,
    app: Annotated[Parts, Depends(parts)],
    ticket: Annotated[
        str | None,
        Query(
            alias=TICKET_PARAM,
            description="RUNYARD_AUTH=keys: a file ticket for this file "
            "(`POST /v1/files/{fileId}/ticket`), in place of the `Authorization` header an "
            "`<img>` or a link cannot send",
        ),
    ] = None,
    tenant: TenantHeader = None,
    user: UserHeader = None,
) -> FileDownload:
    """The file and whose it is: the ticket's holder's, when one is given. (The path's file id
    is declared here, not on the route too, so a bad one is named once.)"""
    mode = request.app.state.runyard.settings.auth
    if ticket is None or mode != "keys":
        owner = (await request_caller(request, app, tenant, user)).owner
        return FileDownload(files_of(request, app, owner), file_id)
    refuse_identity_headers(mode, ((TENANT_HEADER, tenant), (USER_HEADER, user)))
    identity = await verify_file_ticket(app.store, ticket, file_id)
    if identity is None:
        raise ApiError(401, "unauthenticated", _BAD_TICKET, headers={"WWW-Authenticate": "Bearer"})
    return FileDownload(files_of(request, app, identity.owner), file_id)
